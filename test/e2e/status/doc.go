// Package status holds the acceptance tests of specd's own state as API
// resources (status.specd.io, engine/statusapi) and of the console's
// serving (server/console; test/console drives the page in Chromium).
package status
