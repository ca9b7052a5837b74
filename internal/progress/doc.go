// Package progress draws a progress bar on a terminal, and nothing where
// the output is a log or CI's: `specd check` shows its fuzz's progress
// with it.
package progress
