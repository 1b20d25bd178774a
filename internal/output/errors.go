package output

import (
	"errors"
	"os"
	"strings"
)

// OneLine is err's message on one line, its words joined by single
// spaces: every error benchtop prints is one line.
func OneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// PathCause is a path error's cause alone ("no such file or directory"),
// for messages that name the path themselves; other errors as they are.
func PathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
