// Package adapters is the contract between the benchtop engine and the
// databases it drives: the DB interface, its optional extensions (found by
// type assertion), error kinds, typed property access and the registry of
// adapters by name. It imports nothing of benchtop; each concrete adapter
// lives in its own sub-package and registers itself in an init function.
package adapters

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Field is one named column value of a record.
type Field struct {
	Name  string
	Value []byte
}

// Record is a key with its fields, as returned by Scan and taken by
// BatchInserter.
type Record struct {
	Key    string
	Fields []Field
}

// DB is what every adapter implements. One DB value is shared by all worker
// goroutines, so every method must be safe for concurrent use.
//
// Ownership: key strings, field names and value bytes passed IN are only
// valid for the duration of the call (the engine reuses its buffers); an
// adapter that keeps them must copy them (strings.Clone, bytes.Clone).
// Values handed OUT (Read, Scan) belong to the caller, who must not modify
// them; an adapter may return references to immutable internal data.
//
// fields == nil means all fields. A missing key is reported by returning an
// error that wraps ErrNotFound.
type DB interface {
	// Read appends the requested fields of key to dst and returns it.
	Read(ctx context.Context, table, key string, fields []string, dst []Field) ([]Field, error)
	// Scan appends up to count records to dst, starting at the first key
	// >= startKey, in ascending key order (unless the adapter's
	// Capabilities say scans are unordered), and returns it.
	Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []Record) ([]Record, error)
	// Update sets the given fields of an existing record, leaving the others.
	Update(ctx context.Context, table, key string, values []Field) error
	// Insert writes a new record.
	Insert(ctx context.Context, table, key string, values []Field) error
	// Delete removes a record.
	Delete(ctx context.Context, table, key string) error
	// Close releases the adapter's resources.
	Close() error
}

// BatchInserter is implemented by adapters that can insert many records in
// one call. The load phase uses it when present and BatchSize() > 1,
// handing it up to BatchSize() records at a time; each record counts as one
// INSERT whose latency is the whole call's (unless BatchQueuer says the
// batches report as YCSB's JDBC binding's).
type BatchInserter interface {
	BatchSize() int
	InsertBatch(ctx context.Context, table string, records []Record) error
}

// BatchQueuer is implemented by a BatchInserter whose load reports as
// YCSB's JDBC binding with jdbc.batchupdateapi=true: QueuesBatches true
// says that of each full batch every record but the last counts as
// queued (YCSB's BATCHED_OK, timed over its own queuing) and the last as
// the one that sent the batch (OK, timed over its queuing, the call and
// the commit); a short batch, the load's last, is all queued and its
// sending measured by none (YCSB's cleanup). See workload.Queuer.
type BatchQueuer interface {
	QueuesBatches() bool
}

// RowTimer is implemented by a BatchInserter whose batches run one
// statement per record in one transaction, as YCSB's JDBC binding runs
// its inserts with jdbc.autocommit=false and no jdbc.batchupdateapi (an
// executeUpdate each, a commit every db.batchsize records; each record OK,
// timed over its own statement, the commit in the last's): RowTimed says
// they do for this run, and InsertBatchTimed is InsertBatch that appends
// to took each record's own time (ns), from the previous record's end (or
// the call's start) to its statement's end.
type RowTimer interface {
	RowTimed() bool
	InsertBatchTimed(ctx context.Context, table string, records []Record, took []int64) ([]int64, error)
}

// Partitioned is implemented by adapters whose store has partitions of its
// own that benchtop does not change while a run goes on (a SQL table's hash
// partitions): Partitions is how many, what the screen and the reports
// show as the run's partitions. It is read after Preparer's Prepare.
type Partitioned interface {
	Partitions() int
}

// Repartitioner is implemented by adapters that can change their number of
// partitions (shards) while the workload runs, losing no record.
type Repartitioner interface {
	Partitioned
	SetPartitions(ctx context.Context, n int) error
}

// Preparer is implemented by adapters whose store is set up for a run
// before anything is measured: engine.New calls Prepare once, with load
// true when the run has a load phase (benchtop load, or a run that loads
// first). A SQL adapter creates its table then when it is absent, and
// refuses a run phase on a table that is not there. A *ConfigError is bad
// input (exit status 2): the store as it is cannot serve this run.
type Preparer interface {
	Prepare(ctx context.Context, load bool) error
}

// Describer gives a one-line description of the target for the screen and
// reports, such as a URL. It must never contain a password or secret key:
// use MaskURL.
type Describer interface {
	Describe() string
}

// Capabilities describe what an adapter can promise; the conformance suite
// and the engine read them.
type Capabilities struct {
	// UnorderedScan: Scan returns records but not in key order (for example
	// a hash-keyed DynamoDB table).
	UnorderedScan bool
	// StartsEmpty: the store lives in the process and holds nothing when
	// opened (the embedded memory store), so a "run" loads first.
	StartsEmpty bool
	// SharedPartitions: the server divides a stream's partitions among
	// the consumers of a group (Kafka with kafka.group set), so clients
	// that share the stream must not divide them again. A fleet then
	// gives every agent the whole partition count and one shared stream,
	// and grows it once (fleet.DividesPartitions, adapters.SharedStream).
	// Without it, a stream's partitions are benchtop's own (Redis Streams,
	// NATS, the memory store): a fleet divides them, each agent a stream
	// of its own.
	SharedPartitions bool
}

// Capable is implemented by adapters whose Capabilities differ from the
// zero value.
type Capable interface {
	Capabilities() Capabilities
}

// CapabilitiesOf returns db's Capabilities, or the zero value.
func CapabilitiesOf(db DB) Capabilities {
	if c, ok := db.(Capable); ok {
		return c.Capabilities()
	}
	return Capabilities{}
}

// ErrNotFound is wrapped by errors for keys that do not exist.
var ErrNotFound = errors.New("not found")

// Error kinds, used to count errors by kind.
const (
	KindNotFound    = "not_found"
	KindTimeout     = "timeout"
	KindUnavailable = "unavailable"
	KindThrottled   = "throttled"
	KindIntegrity   = "integrity"
	// KindMissing is a data-integrity failure of its own: a read of a
	// record the run loaded and did not delete came back not found (the
	// workload decides it; an adapter returns not_found).
	KindMissing  = "missing"
	KindCanceled = "canceled"
	// KindDuplicate is an insert of a key that exists already (a second
	// load into a full table).
	KindDuplicate = "duplicate"
	KindOther     = "error"
)

// KindError attaches an error kind to an error.
type KindError struct {
	Kind string
	Err  error
}

func (e *KindError) Error() string { return e.Err.Error() }
func (e *KindError) Unwrap() error { return e.Err }

// WithKind wraps err so that Kind(err) reports kind. A nil err stays nil.
func WithKind(kind string, err error) error {
	if err == nil {
		return nil
	}
	return &KindError{Kind: kind, Err: err}
}

// Kind classifies err for error counting: the innermost explicit KindError
// wins; then ErrNotFound, context deadline and cancellation; else KindOther.
func Kind(err error) string {
	var ke *KindError
	if errors.As(err, &ke) {
		return ke.Kind
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return KindNotFound
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, context.Canceled):
		return KindCanceled
	}
	return KindOther
}

// ConfigError is bad input: a property with a value that is not allowed.
// main prints it as one line and exits with status 2.
type ConfigError struct {
	Key     string // property or flag name
	Value   string // the value given; Shown masks it for a secret key
	Allowed string // what is allowed
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: %q is not allowed (allowed: %s)", e.Key, e.Shown(), e.Allowed)
}

// Shown is the value as messages may quote it: "****" for a key that
// names a secret (IsSecretKey), the address masked for an address key
// (MaskURL), else the value.
func (e *ConfigError) Shown() string {
	return maskProperty(e.Key, e.Value)
}

// Properties are the run's properties (YCSB names), read-only for adapters.
type Properties map[string]string

// String returns the property or def when unset.
func (p Properties) String(key, def string) string {
	if v, ok := p[key]; ok {
		return v
	}
	return def
}

// Int returns the property as an integer, def when unset, or a
// *ConfigError.
//
// Deprecated: read through a Reader, which checks ranges and records the
// key (nothing in benchtop calls this any more).
func (p Properties) Int(key string, def int64) (int64, error) {
	r := NewReader(p)
	return r.Int64(key, def, math.MinInt64, math.MaxInt64), r.Err()
}

// Float returns the property as a number, def when unset, or a
// *ConfigError.
//
// Deprecated: read through a Reader (nothing in benchtop calls this).
func (p Properties) Float(key string, def float64) (float64, error) {
	r := NewReader(p)
	return r.Float(key, def, -math.MaxFloat64, math.MaxFloat64), r.Err()
}

// Bool returns the property as a boolean (true/false, 1/0, yes/no, on/off),
// def when unset, or a *ConfigError.
//
// Deprecated: read through a Reader (engine/config.go's propReader is the
// last caller).
func (p Properties) Bool(key string, def bool) (bool, error) {
	r := NewReader(p)
	return r.Bool(key, def), r.Err()
}

// Duration returns the property as a Go duration ("300ms", "2s") >= 0; a
// bare number is read in unit. def when unset, or a *ConfigError.
//
// Deprecated: read through a Reader (nothing in benchtop calls this).
func (p Properties) Duration(key string, def, unit time.Duration) (time.Duration, error) {
	r := NewReader(p)
	return r.Duration(key, def, unit, 0, math.MaxInt64), r.Err()
}

// MaxPartitions is the largest partition count benchtop runs with. It is
// defined here, in the package every other one may import, so that the
// engine, the workloads and the adapters share one limit.
const MaxPartitions = 1024

// Driver describes one adapter for the registry.
type Driver struct {
	// Name is what the user types: "memory", "mongodb", ...
	Name string
	// Description is one line for the list of adapters.
	Description string
	// Prefixes are the property-name prefixes the adapter reads, such as
	// "mongodb." (a name not ending in '.' is one exact name, such as
	// YCSB's "batchsize"); properties under them are not warned about as
	// unknown by the engine's check of unclaimed names.
	Prefixes []string
	// Keys lists every property name the adapter reads (its YCSB aliases
	// included, and core names such as "table" or "partitions", which
	// serve as close matches: memory.partitions -> partitions). Any other
	// name under Prefixes draws a warning with a close match
	// (Driver.Unknown). nil: not listed, every name under Prefixes is
	// accepted unchecked.
	Keys []string
	// StrictKeys makes an unknown name under Prefixes an error rather
	// than a warning (dynamodb: a typo there could send the run to
	// another endpoint or table layout than the one meant).
	StrictKeys bool
	// Open connects. It returns a *ConfigError (possibly wrapped) for bad
	// properties, any other error for a failure to connect; the error text
	// must not contain secrets. ctx bounds the time spent connecting:
	// DefaultOpenTimeout, or OpenTimeout's answer when that is longer.
	Open func(ctx context.Context, props Properties) (DB, error)
	// OpenTimeout, when set, returns how long Open may take with these
	// properties when that is more than DefaultOpenTimeout: an Open that
	// creates a table waits for the database's DDL (HBase pre-splitting
	// a table on a busy cluster). Zero: DefaultOpenTimeout.
	OpenTimeout func(props Properties) time.Duration
	// Notes, when set, returns lines about names the adapter accepts but
	// does not honour as YCSB does (YCSB's db.driver, a JDBC fetch size),
	// each a whole line such as "warning: jdbc.fetchsize=10 has no effect
	// (...)": CheckUnknown adds them for the selected adapter, so that no
	// YCSB name is dropped without a word.
	Notes func(props Properties) []string
	// Fleet, when set, returns properties that a fleet's coordinator sets
	// once, for every agent alike, before the run is validated: names that
	// the agents must share and that none of them may pick alone (Kafka's
	// topic and consumer group). nil or an empty map: nothing to add.
	Fleet func(props Properties) map[string]string
}

// Unknown checks the properties under d's Prefixes against d.Keys (nothing
// when d.Keys is nil): it returns one warning for each name it does not
// know (see UnknownWarnings), or, when d.StrictKeys, the *ConfigError for
// the first such name (see UnknownKeyError).
func (d Driver) Unknown(props map[string]string) ([]string, error) {
	if d.Keys == nil {
		return nil, nil
	}
	if d.StrictKeys {
		return nil, UnknownKeyError(props, d.Prefixes, d.Keys)
	}
	return UnknownWarnings(props, d.Prefixes, d.Keys), nil
}

// CheckUnknown checks props against every registered driver's Keys, as
// the engine does before it opens anything: one warning for each name under
// a driver's Prefixes that the driver does not read (sorted, each once),
// or, for the driver named selected when it has StrictKeys, the
// *ConfigError for the first such name. A strict driver that is not the
// selected one only warns: its names do not change this run. The selected
// driver's Notes follow the warnings.
func CheckUnknown(props map[string]string, selected string) ([]string, error) {
	seen := map[string]bool{}
	var warns []string
	for _, d := range Drivers() {
		if d.Keys == nil {
			continue
		}
		if d.StrictKeys && d.Name == selected {
			if err := UnknownKeyError(props, d.Prefixes, d.Keys); err != nil {
				return nil, err
			}
		}
		for _, w := range UnknownWarnings(props, d.Prefixes, d.Keys) {
			if !seen[w] {
				seen[w] = true
				warns = append(warns, w)
			}
		}
	}
	sort.Strings(warns)
	if d, ok := Lookup(selected); ok && d.Notes != nil {
		warns = append(warns, d.Notes(props)...)
	}
	return warns, nil
}

var (
	regMu    sync.RWMutex
	registry = map[string]Driver{}
)

// Register adds a driver; it panics on a duplicate name (a programming
// error found at init time).
func Register(d Driver) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[d.Name]; dup {
		panic("adapters: duplicate registration of " + d.Name)
	}
	registry[d.Name] = d
}

// Lookup returns the driver registered under name.
func Lookup(name string) (Driver, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	d, ok := registry[name]
	return d, ok
}

// Names lists the registered adapter names in order.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Drivers lists the registered drivers by name.
func Drivers() []Driver {
	names := Names()
	out := make([]Driver, 0, len(names))
	for _, n := range names {
		d, _ := Lookup(n)
		out = append(out, d)
	}
	return out
}

// Open opens the adapter registered under name. An unknown name is a
// *ConfigError listing the known ones.
func Open(ctx context.Context, name string, props Properties) (DB, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, &ConfigError{Key: "database", Value: name, Allowed: strings.Join(Names(), ", ")}
	}
	return d.Open(ctx, props)
}

// DefaultOpenTimeout bounds an adapter's Open unless its driver asks for
// longer (Driver.OpenTimeout).
const DefaultOpenTimeout = 30 * time.Second

// OpenTimeout returns how long the named adapter's Open may take with
// props: DefaultOpenTimeout, or the driver's own bound when longer.
func OpenTimeout(name string, props Properties) time.Duration {
	d, ok := Lookup(name)
	if !ok || d.OpenTimeout == nil {
		return DefaultOpenTimeout
	}
	return max(DefaultOpenTimeout, d.OpenTimeout(props))
}

// MaskURL returns s with any password (user:password@) replaced by ****,
// and with the values of query parameters that look like secrets masked
// too. A JDBC URL (jdbc:postgresql://..., jdbc:mysql://...) is masked as
// the URL after "jdbc:"; a string that is not a URL is masked loosely: its
// "user:password@" (a Go MySQL DSN such as user:pw@tcp(host:3306)/db) and
// any password=value keyword (a libpq connection string). Several URLs
// separated by ';' (YCSB's JDBC shards) are masked each.
func MaskURL(s string) string {
	if strings.Count(s, "://") > 1 && strings.Contains(s, ";") {
		// YCSB's JDBC shards: several URLs separated by ';'.
		parts := strings.Split(s, ";")
		for i, p := range parts {
			parts[i] = MaskURL(p)
		}
		return strings.Join(parts, ";")
	}
	if len(s) > 5 && strings.EqualFold(s[:5], "jdbc:") {
		return s[:5] + MaskURL(s[5:])
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return maskKeywordPassword(maskUserinfoLoose(s))
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "****")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			lk := strings.ToLower(k)
			if strings.Contains(lk, "password") || strings.Contains(lk, "secret") || strings.Contains(lk, "token") || lk == "authmechanismproperties" {
				q.Set(k, "****")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return strings.Replace(u.String(), "%2A%2A%2A%2A", "****", -1)
}

// keywordPassword is a password=value pair of a libpq keyword/value
// connection string (the value bare or single-quoted).
var keywordPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]+)`)

// maskKeywordPassword masks the value of every password=value keyword.
func maskKeywordPassword(s string) string {
	return keywordPassword.ReplaceAllString(s, "${1}****")
}

// maskUserinfoLoose masks "user:pass@" in strings url.Parse rejects.
func maskUserinfoLoose(s string) string {
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return s
	}
	start := strings.Index(s, "://")
	if start < 0 {
		start = 0
	} else {
		start += 3
	}
	colon := strings.Index(s[start:at], ":")
	if colon < 0 {
		return s
	}
	return s[:start+colon+1] + "****" + s[at:]
}
