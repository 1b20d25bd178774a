package nats

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"benchtop/adapters"
	"benchtop/workload/stream/streamtest"
)

// nats.storage=memory creates the stream in memory, as the server reports
// it (its config and its account's memory use), and the stream passes the
// stream conformance suite; the default is file storage.
func TestStorageMemoryOnServer(t *testing.T) {
	u := os.Getenv("BENCHTOP_NATS_URL")
	if u == "" {
		t.Skip("no NATS server: run `eval \"$(bash .ci/servers/nats.sh start)\"` (sets BENCHTOP_NATS_URL) to enable")
	}
	for _, tc := range []struct {
		value string
		want  jetstream.StorageType
	}{{"memory", jetstream.MemoryStorage}, {"", jetstream.FileStorage}} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		props := adapters.Properties{"nats.url": u, "workload": "stream"}
		if tc.value != "" {
			props[PropStorage] = tc.value
		}
		db, err := Open(ctx, props)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		name := "bttest-storage-" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
		s, err := db.OpenStream(ctx, name, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Produce(ctx, []adapters.StreamRow{{Partition: 0, Data: []byte("row")}, {Partition: 1, Data: []byte("row")}}); err != nil {
			t.Fatal(err)
		}
		// Ask the server afresh, not the handle the adapter made.
		st, err := db.js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Config.Storage != tc.want || info.State.Msgs != 2 {
			t.Errorf("nats.storage=%q: the server holds the stream in %v with %d messages, want %v with 2", tc.value, info.Config.Storage, info.State.Msgs, tc.want)
		}
		acct, err := db.js.AccountInfo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == jetstream.MemoryStorage && acct.Memory == 0 {
			t.Errorf("nats.storage=memory: the account uses no memory storage")
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if tc.want == jetstream.MemoryStorage {
			streamtest.Run(t, db, streamtest.Options{Rows: 5000})
		}
		db.Close()
		cancel()
	}
}
