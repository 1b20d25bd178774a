package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"benchtop/adapters"
)

// sdkWrap wraps err the way the SDK returns errors from an operation that
// ran out of retries.
func sdkWrap(op string, err error) error {
	return &smithy.OperationError{
		ServiceID:     "DynamoDB",
		OperationName: op,
		Err:           &retry.MaxAttemptsError{Attempt: 3, Err: err},
	}
}

func apiErr(code string) error {
	return &smithy.GenericAPIError{Code: code, Message: "synthetic " + code}
}

func statusErr(code int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code}},
		Err:      errors.New("synthetic"),
	}}
}

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	clientTimeout := &url.Error{Op: "Post", URL: "http://127.0.0.1:8000/", Err: timeoutErr{}}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"ProvisionedThroughputExceededException", sdkWrap("GetItem", apiErr("ProvisionedThroughputExceededException")), adapters.KindThrottled},
		{"ThrottlingException", sdkWrap("PutItem", apiErr("ThrottlingException")), adapters.KindThrottled},
		{"RequestLimitExceeded", sdkWrap("UpdateItem", apiErr("RequestLimitExceeded")), adapters.KindThrottled},
		{"typed throughput exception", sdkWrap("GetItem", &types.ProvisionedThroughputExceededException{Message: new(string)}), adapters.KindThrottled},
		{"typed request limit", sdkWrap("GetItem", &types.RequestLimitExceeded{}), adapters.KindThrottled},
		{"HTTP 429", sdkWrap("GetItem", statusErr(429)), adapters.KindThrottled},
		{"HTTP 503", sdkWrap("GetItem", statusErr(503)), adapters.KindUnavailable},
		{"ServiceUnavailable", sdkWrap("GetItem", apiErr("ServiceUnavailable")), adapters.KindUnavailable},
		{"RequestTimeout code", sdkWrap("GetItem", apiErr("RequestTimeoutException")), adapters.KindTimeout},
		{"validation", sdkWrap("GetItem", apiErr("ValidationException")), adapters.KindOther},
		{"missing table", sdkWrap("GetItem", &types.ResourceNotFoundException{}), adapters.KindOther},
		{"internal server error", sdkWrap("GetItem", apiErr("InternalServerError")), adapters.KindOther},
		{"connection refused", sdkWrap("GetItem", &smithyhttp.RequestSendError{Err: &url.Error{Op: "Post", URL: "x", Err: refused}}), adapters.KindUnavailable},
		{"dial timeout", sdkWrap("GetItem", &smithyhttp.RequestSendError{Err: &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}}), adapters.KindUnavailable},
		{"connection reset", sdkWrap("GetItem", &smithyhttp.RequestSendError{Err: reset}), adapters.KindUnavailable},
		{"unexpected EOF", sdkWrap("GetItem", &smithyhttp.RequestSendError{Err: io.ErrUnexpectedEOF}), adapters.KindUnavailable},
		{"bare send error", sdkWrap("GetItem", &smithyhttp.RequestSendError{Err: errors.New("something")}), adapters.KindUnavailable},
		{"client timeout", sdkWrap("GetItem", &smithyhttp.RequestSendError{Err: clientTimeout}), adapters.KindTimeout},
		{"context deadline", sdkWrap("GetItem", &smithy.CanceledError{Err: context.DeadlineExceeded}), adapters.KindTimeout},
		{"context canceled", sdkWrap("GetItem", &smithy.CanceledError{Err: context.Canceled}), adapters.KindCanceled},
		{"unknown", errors.New("odd"), adapters.KindOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := fmt.Errorf("dynamodb: read %q: %w", "user1", classify(c.err))
			if got := adapters.Kind(err); got != c.want {
				t.Errorf("Kind(%v) = %q, want %q", err, got, c.want)
			}
			if !errors.Is(err, c.err) {
				t.Error("the SDK error is no longer in the chain")
			}
		})
	}
	if classify(nil) != nil {
		t.Error("classify(nil) != nil")
	}
}

func TestRedact(t *testing.T) {
	inner := classify(sdkWrap("GetItem", apiErr("ThrottlingException")))
	err := redact(fmt.Errorf("dynamodb: read: %w: key SENTINEL-xyz", inner), "SENTINEL-xyz")
	if got := err.Error(); got != "dynamodb: read: "+inner.Error()+": key ****" {
		t.Errorf("redacted text = %q", got)
	}
	if adapters.Kind(err) != adapters.KindThrottled {
		t.Errorf("redaction lost the kind: %q", adapters.Kind(err))
	}
	if redact(nil, "SENTINEL-xyz") != nil {
		t.Error("redact(nil) != nil")
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
