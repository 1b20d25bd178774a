package dynamodb

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/aws/smithy-go"

	"benchtop/adapters"
)

// throttleCodes are the DynamoDB API error codes that mean "slow down":
// DynamoDB's own three, and the generic names other implementations
// (Alternator among them) and gateways use.
var throttleCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
	"Throttling":                             true,
	"ThrottledException":                     true,
	"RequestThrottled":                       true,
	"RequestThrottledException":              true,
	"TooManyRequestsException":               true,
	"SlowDown":                               true,
}

// timeoutCodes are API error codes for a request the server gave up on.
var timeoutCodes = map[string]bool{
	"RequestTimeout":          true,
	"RequestTimeoutException": true,
}

// unavailableCodes are API error codes for a server that cannot serve now.
var unavailableCodes = map[string]bool{
	"ServiceUnavailable":          true,
	"ServiceUnavailableException": true,
}

// classify attaches an adapters error kind to an SDK error. The API error
// code wins over the transport: a throttled request is throttled even if
// the SDK also gave up retrying it.
func classify(err error) error {
	if err == nil {
		return nil
	}
	return adapters.WithKind(kindOf(err), err)
}

func kindOf(err error) string {
	switch {
	case errors.Is(err, adapters.ErrNotFound):
		return adapters.KindNotFound
	case errors.Is(err, context.Canceled):
		return adapters.KindCanceled
	}

	var api smithy.APIError
	if errors.As(err, &api) {
		code := api.ErrorCode()
		switch {
		case throttleCodes[code]:
			return adapters.KindThrottled
		case timeoutCodes[code]:
			return adapters.KindTimeout
		case unavailableCodes[code]:
			return adapters.KindUnavailable
		}
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		switch status.HTTPStatusCode() {
		case 429:
			return adapters.KindThrottled
		case 502, 503:
			return adapters.KindUnavailable
		case 504:
			return adapters.KindTimeout
		}
	}

	// A failed dial means the server is not there, even when the dial
	// itself timed out.
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return adapters.KindUnavailable
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return adapters.KindTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return adapters.KindTimeout
	}

	var conn interface{ ConnectionError() bool } // smithyhttp.RequestSendError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF),
		errors.Is(err, net.ErrClosed),
		errors.As(err, &op),
		errors.As(err, &conn) && conn.ConnectionError():
		return adapters.KindUnavailable
	}
	// The stdlib reports a server that closed the connection mid-request
	// without a typed error.
	if msg := err.Error(); strings.Contains(msg, "connection reset") || strings.Contains(msg, "server closed idle connection") {
		return adapters.KindUnavailable
	}
	return adapters.KindOther
}

// redactedError hides a secret in the text of an error it wraps. The SDK
// does not put secrets into errors; this makes sure of it.
type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string { return strings.ReplaceAll(e.err.Error(), e.secret, "****") }
func (e *redactedError) Unwrap() error { return e.err }

// redact wraps err so that its text never shows secret.
func redact(err error, secret string) error {
	if err == nil || len(secret) < 4 {
		return err
	}
	return &redactedError{err: err, secret: secret}
}
