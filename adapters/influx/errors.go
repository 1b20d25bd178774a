package influx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"benchtop/adapters"
)

// HTTPError is a request the server answered with a status other than
// 2xx. Errors of the adapter wrap it (with an adapters.KindError around),
// so errors.As finds it; other packages can ask for the status through
// the interface{ HTTPStatus() int } without importing this one.
type HTTPError struct {
	Op      string // "write", "query", "ping"
	Status  int    // HTTP status code
	Message string // the server's error text, shortened
}

func (e *HTTPError) Error() string {
	text := http.StatusText(e.Status)
	if e.Message == "" {
		return fmt.Sprintf("HTTP %d %s", e.Status, text)
	}
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, text, e.Message)
}

// HTTPStatus returns the status code.
func (e *HTTPError) HTTPStatus() int { return e.Status }

// KindForStatus is the error kind of an HTTP status: 429 (too many
// requests) and 503 (service unavailable, which InfluxDB and openGemini
// answer when their write queues are full) are "throttled"; 408 and 504
// "timeout"; 502 "unavailable"; anything else, 4xx and 5xx, "error". The
// status itself is counted apart, by the timeseries workload.
func KindForStatus(status int) string {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return adapters.KindThrottled
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return adapters.KindTimeout
	case http.StatusBadGateway:
		return adapters.KindUnavailable
	}
	return adapters.KindOther
}

// statusError builds the error of a non-2xx answer from its header and
// (up to 1 KiB of) body. InfluxDB puts the text in X-Influxdb-Error and a
// JSON body {"error": "..."}; v2 servers send {"code": ..., "message": ...}.
func statusError(op string, resp *http.Response) *HTTPError {
	e := &HTTPError{Op: op, Status: resp.StatusCode}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	msg := resp.Header.Get("X-Influxdb-Error")
	if msg == "" {
		var j struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &j) == nil {
			msg = j.Error
			if msg == "" {
				msg = j.Message
			}
		}
	}
	if msg == "" {
		msg = string(body)
	}
	e.Message = shorten(strings.Join(strings.Fields(msg), " "), 300)
	return e
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// transportKind classifies an error of the HTTP round trip (no answer).
func transportKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return adapters.KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return adapters.KindTimeout
	case errors.As(err, &ne) && ne.Timeout():
		return adapters.KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return adapters.KindUnavailable
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return adapters.KindUnavailable
	}
	return adapters.KindOther
}

// transportError wraps a round-trip error with its kind. The *url.Error
// that net/http returns repeats the request URL; it is dropped here for
// the adapter's own masked wording.
func transportError(what string, err error) error {
	kind := transportKind(err)
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return adapters.WithKind(kind, fmt.Errorf("%s: %w", what, err))
}
