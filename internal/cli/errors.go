package cli

import "fmt"

// usageError is bad input: the user's to fix, printed as one line with
// exit status 2 (exitUsage).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }
