package mongodb

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload/ycsb"
)

var wlHost = host.NewSampler()

// The load phase through the Runner with mongodb.batchsize: insertMany of
// up to 50 documents, and exactly insertcount documents on the server.
func TestIntegrationBatchedLoadThroughRunner(t *testing.T) {
	db := openTest(t, adapters.Properties{PropBatchSize: "50"})
	props := map[string]string{"recordcount": "400", "insertcount": "333", "threadcount": "4", "status.interval": "100ms",
		PropURL: db.cfg.url, PropBatchSize: "50"}
	cfg, _, err := engine.NewConfig("load", "mongodb", props)
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.New(cfg, db, engine.Options{Host: wlHost})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	res, err := r.Run(testCtx(t))
	if err != nil || len(res) != 1 {
		t.Fatalf("Run: %d phases, %v", len(res), err)
	}
	var n int64
	for _, v := range []int{measure.OK, measure.Failed} {
		if h := res[0].Set.H[measure.Slot(ycsb.OpInsert, v)]; h != nil {
			n += h.TotalCount()
		}
	}
	if n != 333 || res[0].Set.Errors[ycsb.OpInsert] != nil {
		t.Fatalf("load: %d INSERTs, errors %v; want 333 clean", n, res[0].Set.Errors[ycsb.OpInsert])
	}
	got, err := db.db.Collection("usertable").CountDocuments(testCtx(t), bson.D{})
	if err != nil || got != 333 {
		t.Errorf("the collection holds %d documents (%v), want 333", got, err)
	}
}

// proxy is a TCP proxy in front of the server that decodes the OP_MSG
// commands the driver sends, so that a test sees what reached the wire.
type proxy struct {
	ln       net.Listener
	target   string
	mu       sync.Mutex
	commands []bson.Raw
	open     int // connections open now
	maxOpen  int
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.conn(c)
	}
}

func (p *proxy) conn(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer s.Close()
	p.mu.Lock()
	p.open++
	p.maxOpen = max(p.maxOpen, p.open)
	p.mu.Unlock()
	defer func() { p.mu.Lock(); p.open--; p.mu.Unlock() }()
	go io.Copy(c, s)
	var hdr [16]byte
	for {
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		size := binary.LittleEndian.Uint32(hdr[0:4])
		if size < 16 || size > 48<<20 {
			return
		}
		body := make([]byte, size-16)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		if binary.LittleEndian.Uint32(hdr[12:16]) == 2013 && len(body) > 5 && body[4] == 0 {
			// OP_MSG: flag bits, then section 0, the command document.
			doc := bson.Raw(body[5:])
			if l := int(binary.LittleEndian.Uint32(body[5:9])); l <= len(body)-5 {
				p.mu.Lock()
				p.commands = append(p.commands, bytes.Clone(doc[:l]))
				p.mu.Unlock()
			}
		}
		if _, err := s.Write(append(hdr[:], body...)); err != nil {
			return
		}
	}
}

// sent returns the commands whose first element is name.
func (p *proxy) sent(name string) []bson.Raw {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []bson.Raw
	for _, c := range p.commands {
		if els, err := c.Elements(); err == nil && len(els) > 0 && els[0].Key() == name {
			out = append(out, c)
		}
	}
	return out
}

// YCSB's legacy options reach the server: mongodb.writeConcern becomes the
// writeConcern of every insert, and mongodb.maxconnections bounds the
// connections (plus the driver's two monitoring connections). A standalone
// server is never sent $readPreference (the driver spec), so
// mongodb.readPreference cannot be seen here; its folding into the URL is
// tested in config_test.go.
func TestIntegrationLegacyOptionsReachServer(t *testing.T) {
	base := testURL(t)
	hostPort := base[len("mongodb://"):hostsEnd(base)]
	for _, tc := range []struct {
		concern string
		check   func(wc bson.Raw) bool
		want    string
	}{
		{"majority", func(wc bson.Raw) bool { return wc.Lookup("w").StringValue() == "majority" }, `{w: "majority"}`},
		{"journaled", func(wc bson.Raw) bool { return wc.Lookup("j").Boolean() }, `{j: true}`},
		{"acknowledged", func(wc bson.Raw) bool { v, ok := wc.Lookup("w").AsInt64OK(); return ok && v == 1 }, `{w: 1}`},
	} {
		t.Run(tc.concern, func(t *testing.T) {
			p := newProxy(t, hostPort)
			u := strings.Replace(base, hostPort, p.ln.Addr().String(), 1)
			// The base URL's own w=1 would win over the legacy option.
			u = strings.Replace(strings.Replace(u, "?w=1&", "?", 1), "?w=1", "", 1)
			db := openTest(t, adapters.Properties{PropURL: u, PropWriteConcern: tc.concern, PropMaxConnections: "2"})
			ctx := testCtx(t)
			var wg sync.WaitGroup
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 10; i++ {
						if err := db.Insert(ctx, "usertable", fmt.Sprintf("k%d-%d", w, i), fields(2, "x")); err != nil {
							t.Errorf("Insert: %v", err)
						}
					}
				}()
			}
			wg.Wait()
			ins := p.sent("insert")
			if len(ins) != 80 {
				t.Fatalf("%d insert commands reached the server, want 80", len(ins))
			}
			for _, c := range ins {
				wc, ok := c.Lookup("writeConcern").DocumentOK()
				if !ok || !tc.check(wc) {
					t.Fatalf("insert sent with writeConcern %v, want %s", c.Lookup("writeConcern"), tc.want)
				}
			}
			p.mu.Lock()
			most := p.maxOpen
			p.mu.Unlock()
			if most > 2+2 {
				t.Errorf("%d connections open at once with mongodb.maxconnections=2, want at most 4 (2 + monitoring)", most)
			}
		})
	}
}

// The adapter survives a real server restart: operations fail while the
// server is down (unavailable, not a hang) and work again once it is back,
// on the same DB value, with the data kept.
func TestIntegrationReconnectsAfterRestart(t *testing.T) {
	pidFile := os.Getenv("BENCHTOP_MONGODB_PID_FILE")
	if pidFile == "" {
		t.Skip("BENCHTOP_MONGODB_PID_FILE is not set: start the server with `eval \"$(bash .ci/servers/mongodb.sh start)\"` to enable")
	}
	db := openTest(t, nil)
	ctx := testCtx(t)
	if err := db.Insert(ctx, "usertable", "before", fields(3, "b")); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("pid file %s: %q", pidFile, raw)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("stop the server (pid %d): %v", pid, err)
	}
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	restarted := false
	restart := func() {
		if restarted {
			return
		}
		restarted = true
		u := os.Getenv(envURL)
		port := u[strings.LastIndex(u[:hostsEnd(u)], ":")+1 : hostsEnd(u)]
		cmd := exec.Command("bash", filepath.Join("..", "..", ".ci", "servers", "mongodb.sh"), "start")
		cmd.Env = append(os.Environ(), "BENCHTOP_MONGODB_PORT="+port)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("restart the server: %v\n%s", err, out)
		}
	}
	t.Cleanup(restart) // never leave the server down for the next test

	down, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = db.Read(down, "usertable", "before", nil, nil)
	cancel()
	if err == nil {
		t.Fatal("Read succeeded with the server down")
	}
	if k := adapters.Kind(err); k != adapters.KindUnavailable && k != adapters.KindTimeout {
		t.Errorf("Read with the server down: kind %q (%v), want unavailable or timeout", k, err)
	}
	restart()
	var got []adapters.Field
	for i := 0; i < 50; i++ {
		if got, err = db.Read(ctx, "usertable", "before", nil, nil); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil || len(got) != 3 {
		t.Fatalf("Read after the restart: %d fields, %v; want the record back", len(got), err)
	}
	if err := db.Insert(ctx, "usertable", "after", fields(1, "a")); err != nil {
		t.Errorf("Insert after the restart: %v", err)
	}
}
