//go:build !linux

package liblog

// CaptureStderr does nothing off Linux: the libraries' own loggers are
// still routed (Open), only writes straight to standard error are not.
func (s *Sink) CaptureStderr() (restore func(), err error) { return func() {}, nil }
