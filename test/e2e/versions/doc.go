// Package versions holds the acceptance tests of a kind served in
// several versions and of schemas that change: conversion rules,
// deprecated, disabled and unserved versions, schema reloads (by watch,
// SIGHUP, or while starting), and storage version migration.
package versions
