package redis

import (
	"errors"
	"strings"
	"testing"

	"benchtop/adapters"
)

func TestCmdBufEncodesRESP(t *testing.T) {
	var b cmdBuf
	b = b.cmd(4).str("HSET").hashKey("usertable", "user1").str("f").bytes([]byte("a\r\nb"))
	want := "*4\r\n$4\r\nHSET\r\n$15\r\nusertable:user1\r\n$1\r\nf\r\n$4\r\na\r\nb\r\n"
	if string(b) != want {
		t.Errorf("got %q\nwant %q", b, want)
	}
}

func respFrom(s string) *respReader { return newRespReader(strings.NewReader(s), 128) }

func TestReadFields(t *testing.T) {
	r := respFrom("*4\r\n$6\r\nfield0\r\n$3\r\nabc\r\n$6\r\nfield1\r\n$0\r\n\r\n" +
		"*4\r\n$6\r\nfield1\r\n$2\r\nxy\r\n$6\r\nfield0\r\n$1\r\nz\r\n")
	got, err := readFields(r, nil, nil)
	if err != nil || len(got) != 2 || got[0].Name != "field0" || string(got[0].Value) != "abc" ||
		got[1].Name != "field1" || len(got[1].Value) != 0 {
		t.Fatalf("readFields = %+v, %v", got, err)
	}
	again, err := readFields(r, nil, got[:0:0])
	if err != nil || len(again) != 2 || again[0].Name != "field1" || string(again[0].Value) != "xy" || string(again[1].Value) != "z" {
		t.Fatalf("second reply: %+v, %v", again, err)
	}
	if len(r.names) != 2 {
		t.Errorf("interned %d names, want 2: %v", len(r.names), r.names)
	}
	// The engine's buffers are reused, the values must not share memory.
	got[0].Value[0] = 'X'
	if string(again[1].Value) != "z" {
		t.Error("values share a buffer")
	}
}

func TestReadNamedFieldsSkipsNil(t *testing.T) {
	r := respFrom("*3\r\n$1\r\na\r\n$-1\r\n$2\r\ncc\r\n")
	name := []byte("f0")
	fields := []string{string(name), "f1", "f2"}
	got, err := readFields(r, fields, nil)
	if err != nil || len(got) != 2 || got[0].Name != "f0" || string(got[0].Value) != "a" || got[1].Name != "f2" || string(got[1].Value) != "cc" {
		t.Fatalf("readFields = %+v, %v", got, err)
	}
}

func TestReadFieldsErrors(t *testing.T) {
	for _, tc := range []struct {
		reply  string
		fields []string
		server bool // a server error reply (the connection stays usable)
	}{
		{"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", nil, true},
		{"*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", nil, false}, // odd HGETALL
		{"*2\r\n$1\r\na\r\n$-1\r\n", nil, false},                // nil value in HGETALL
		{"*1\r\n$1\r\na\r\n", []string{"f0", "f1"}, false},      // HMGET count mismatch
		{":1\r\n", nil, false},             // wrong type
		{"*2\r\n$5\r\nab\r\n", nil, false}, // short bulk
		{"*2\n", nil, false},               // no CR
		{"*x\r\n", nil, false},             // bad number
		{"?2\r\n", nil, false},             // unknown type
		{"*2\r\n$" + strings.Repeat("9", 200) + "\r\n", nil, false}, // line past the buffer
	} {
		_, err := readFields(respFrom(tc.reply), tc.fields, nil)
		_, server := err.(serverError)
		if err == nil || server != tc.server || (!server && !errors.Is(err, errProtocol) && !strings.Contains(err.Error(), "EOF")) {
			t.Errorf("%q: err %v (server error %v), want server error %v", tc.reply, err, server, tc.server)
		}
	}
}

func TestParseInt(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "42": 42, "-1": -1, "9223372036854775": 9223372036854775} {
		if n, err := parseInt([]byte(s)); err != nil || n != want {
			t.Errorf("parseInt(%q) = %d, %v", s, n, err)
		}
	}
	for _, s := range []string{"", "-", "1a", "99999999999999999999"} {
		if _, err := parseInt([]byte(s)); !errors.Is(err, errProtocol) {
			t.Errorf("parseInt(%q): %v, want a protocol error", s, err)
		}
	}
}

func TestSkipReturnsFirstServerError(t *testing.T) {
	r := respFrom("*3\r\n:1\r\n-ERR one\r\n$2\r\nok\r\n+PONG\r\n")
	if err := r.skip(); err == nil || err.Error() != "ERR one" {
		t.Fatalf("skip = %v, want ERR one", err)
	}
	if _, err := r.expect('+'); err != nil {
		t.Errorf("the next reply after skip: %v", err)
	}
}

func TestLeanErrorsClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind string
	}{
		{errPoolClosed, adapters.KindUnavailable},
		{errPoolTimeout, adapters.KindUnavailable},
		{errProtocol, adapters.KindUnavailable},
		{serverError("LOADING Redis is loading the dataset in memory"), adapters.KindUnavailable},
		{serverError("OOM command not allowed"), adapters.KindThrottled},
	} {
		if k := adapters.Kind(classify(tc.err)); k != tc.kind {
			t.Errorf("Kind(classify(%v)) = %q, want %q", tc.err, k, tc.kind)
		}
	}
}

func TestReadTx(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		queued      int
		want        string // "" = no error, else the error's text
		del         int64
	}{
		{"ok", "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n:1\r\n", 2, "", 1},
		{"an element's error", "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:0\r\n-WRONGTYPE bad\r\n", 2, "WRONGTYPE bad", 0},
		{"aborted", "+OK\r\n-ERR wrong number of arguments\r\n+QUEUED\r\n-EXECABORT Transaction discarded\r\n", 2, "ERR wrong number of arguments", -1},
		{"short", "+OK\r\n+QUEUED\r\n*1\r\n:1\r\n", 2, "protocol error", -1},
	} {
		r := respFrom(tc.reply + "+NEXT\r\n")
		del := int64(-1)
		err := readTx(r, tc.queued, func(r *respReader) error {
			var err error
			del, err = r.expect(':')
			return err
		})
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) || del != tc.del {
			t.Errorf("%s: err %v, del %d; want %q, %d", tc.name, err, del, tc.want, tc.del)
		}
		if _, server := err.(serverError); err == nil || server {
			if _, err := r.expect('+'); err != nil {
				t.Errorf("%s: the next reply: %v (the reader is out of step)", tc.name, err)
			}
		}
	}
}
