// Package testproc runs the child processes of specd's process-level test
// suites (test/e2e, test/chaos): specd servers, etcd members and client
// programs. A Proc keeps the child's output for the test to read, dies
// with the test process, and tells when and how the child ended, so each
// suite only says what to start and how to judge its stop.
package testproc
