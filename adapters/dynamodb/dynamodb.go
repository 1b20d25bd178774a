// Package dynamodb is the benchtop adapter for the DynamoDB API: Amazon
// DynamoDB itself, ScyllaDB Alternator, dynalite and other implementations.
// It reads the property names of YCSB's dynamodb binding
// (dynamodb.endpoint, dynamodb.region, dynamodb.primaryKey, ...) and
// registers itself as "dynamodb".
//
// Records are items keyed by a string attribute (dynamodb.primaryKey,
// default "key"); fields are binary (B) attributes. With
// dynamodb.primaryKeyType=HASH_AND_RANGE, as in YCSB, all records live under
// one hash key value and benchtop's keys are range keys.
//
// Semantics worth knowing, all as in YCSB's binding:
//   - Update is an UpdateItem SET of the given fields: it creates a missing
//     item (an upsert) rather than failing, because a conditional update
//     would be a read-modify-write, which Alternator runs as a lightweight
//     transaction and which would change what is being measured.
//   - Scan on a hash-keyed table is not in key order: it returns the start
//     key's item (when it exists) and then the items that follow it in the
//     table's hash order (Scan from ExclusiveStartKey). Capabilities report
//     UnorderedScan. With HASH_AND_RANGE, Scan is a Query on the one hash
//     key and is in key order.
//   - Delete of a missing key succeeds (DeleteItem is idempotent).
//
// Errors carry adapters error kinds: throttling codes are KindThrottled,
// refused or broken connections KindUnavailable, timeouts KindTimeout.
// The SDK's standard retryer stays in place with dynamodb.maxRetries
// retries (default 2, the Go SDK's default) and without its client-side
// retry quota; set dynamodb.maxRetries=0 to see every throttle live.
package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"

	"benchtop/adapters"
	"benchtop/internal/infile"
)

func init() {
	adapters.Register(adapters.Driver{
		Name:        "dynamodb",
		Description: "DynamoDB API (Amazon DynamoDB, ScyllaDB Alternator, dynalite) with YCSB's dynamodb.* properties",
		Prefixes:    []string{"dynamodb."},
		Keys:        append(knownProps[:len(knownProps):len(knownProps)], PropTable),
		StrictKeys:  true,
		Open:        Open,
		OpenTimeout: openTimeout,
	})
}

// openTimeout is the driver's bound on Open (adapters.Driver.OpenTimeout):
// the default and dynamodb.createTableTimeout, which Open may spend
// waiting for a table to become ACTIVE.
func openTimeout(props adapters.Properties) time.Duration {
	s, err := parseSettings(props)
	if err != nil {
		return 0
	}
	return adapters.DefaultOpenTimeout + s.tableTimeout
}

// DB is a DynamoDB-API adapter. It implements adapters.DB,
// adapters.BatchInserter, adapters.Describer and adapters.Capable, and is
// safe for concurrent use.
type DB struct {
	s      settings
	client *dynamodb.Client
	idle   interface{ CloseIdleConnections() } // the HTTP client, if it can
	secret string                              // to scrub from error texts; never shown
	// dummyCredentials: no credentials were found and the endpoint is on
	// this machine, so placeholder keys are used (dynalite and Alternator
	// without enforced authorization accept any).
	dummyCredentials bool
	batchBase        time.Duration // first backoff for unprocessed batch items
	tables           sync.Map      // table name -> *string, for the SDK's inputs
	consistent       *bool         // dynamodb.consistentReads, for the SDK's inputs
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.BatchInserter = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
	_ adapters.Capable       = (*DB)(nil)
)

// Open validates props, builds the client, and checks (or creates) the
// table named by the "table" property. ctx bounds the whole of it.
func Open(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
	db, err := open(ctx, props)
	if err != nil {
		return nil, err
	}
	return db, nil
}

func open(ctx context.Context, props adapters.Properties) (*DB, error) {
	s, err := parseSettings(props)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: %w", err)
	}
	db := &DB{s: s, batchBase: batchBackoffBase, consistent: aws.Bool(s.consistentReads)}

	// Timeouts bound every attempt, so that a server that is down or hung
	// fails operations (counted live) instead of holding workers. A
	// BuildableClient, because the SDK adds AWS_CA_BUNDLE to it.
	httpClient := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) {
			d.Timeout = s.connectTimeout
			d.KeepAlive = 30 * time.Second
		}).
		WithTransportOptions(func(tr *http.Transport) {
			// dynamodb.connectMax is YCSB's maxConnections: a hard cap, with
			// as many idle connections kept so that busy workers do not churn.
			tr.MaxConnsPerHost = s.connectMax
			tr.MaxIdleConns = s.connectMax
			tr.MaxIdleConnsPerHost = s.connectMax
			tr.TLSHandshakeTimeout = s.connectTimeout
		}).
		WithTimeout(s.requestTimeout)

	retryer := func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = s.maxRetries + 1
			// No retry quota: under sustained throttling it would turn into
			// "retry quota exceeded" errors that hide the real cause.
			o.RateLimiter = ratelimit.None
		})
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRegion(s.region),
		config.WithHTTPClient(httpClient),
		config.WithRetryer(retryer),
	}
	loopback := isLoopback(s.endpoint)
	if s.credentialsFile != "" {
		c, err := readCredentialsFile(s.credentialsFile)
		if err != nil {
			allowed := "a readable Java properties file with accessKey and secretKey"
			if errors.Is(err, infile.ErrNoWriter) {
				allowed += "; this one is a FIFO with no writer"
			}
			return nil, fmt.Errorf("dynamodb: %w: %v", &adapters.ConfigError{Key: PropCredentialsFile, Value: s.credentialsFile, Allowed: allowed}, err)
		}
		db.secret = c.SecretKey
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(c.AccessKey, c.SecretKey, "")))
	} else if loopback {
		// The EC2 instance metadata service is no place to look for the
		// credentials of a server on this machine (and would mean traffic
		// to a link-local address).
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: load AWS configuration: %w", err)
	}
	if b, ok := cfg.HTTPClient.(*awshttp.BuildableClient); ok {
		cfg.HTTPClient = b.Freeze() // one client, one connection pool
	}
	db.idle, _ = cfg.HTTPClient.(interface{ CloseIdleConnections() })
	if s.credentialsFile == "" {
		creds, err := cfg.Credentials.Retrieve(ctx)
		switch {
		case err == nil:
			db.secret = creds.SecretAccessKey
		case loopback:
			db.dummyCredentials = true
			cfg.Credentials = credentials.NewStaticCredentialsProvider("benchtop", "benchtop", "")
		default:
			return nil, redact(fmt.Errorf("dynamodb: no AWS credentials (set %s, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a shared config profile): %w", PropCredentialsFile, err), db.secret)
		}
	}

	// The SDK logs warnings to stderr, which would tear the TUI; errors
	// reach the engine through return values anyway.
	cfg.Logger = logging.Nop{}
	db.client = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// The SDK checks a response's CRC32 against X-Amz-Crc32 and, when a
		// server (Alternator, a proxy) sends no such header, against 0: a
		// warning per response. TLS protects responses from AWS.
		o.DisableValidateResponseChecksum = true
		if s.endpoint != "" {
			o.BaseEndpoint = aws.String(s.endpoint)
		}
	})

	if err := db.ensureTable(ctx, s.table); err != nil {
		db.Close()
		return nil, redact(err, db.secret)
	}
	return db, nil
}

// ensureTable checks that table exists with the configured key schema,
// creating it (PAY_PER_REQUEST) when it is missing and creation is on.
func (db *DB) ensureTable(ctx context.Context, table string) error {
	where := db.where()
	out, err := db.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var missing *types.ResourceNotFoundException
	switch {
	case errors.As(err, &missing):
		if !db.s.createTable {
			return fmt.Errorf("dynamodb: table %q does not exist at %s and %s=false: create it with %s, or drop %s=false: %w",
				table, where, PropCreateTable, db.keyDescription(), PropCreateTable, classify(err))
		}
		return db.createTable(ctx, table)
	case err != nil:
		return fmt.Errorf("dynamodb: describe table %q at %s: %w", table, where, classify(err))
	}
	if err := db.checkKeySchema(table, out.Table); err != nil {
		return fmt.Errorf("dynamodb: %w", err)
	}
	if out.Table.TableStatus == types.TableStatusActive {
		return nil
	}
	return db.waitActive(ctx, table)
}

// createTable creates table and waits until it is ACTIVE. Another client
// creating it at the same moment is fine.
func (db *DB) createTable(ctx context.Context, table string) error {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
	}
	if db.s.keyType == KeyTypeHashAndRange {
		in.AttributeDefinitions = []types.AttributeDefinition{
			{AttributeName: aws.String(db.s.hashKeyName), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(db.s.primaryKey), AttributeType: types.ScalarAttributeTypeS},
		}
		in.KeySchema = []types.KeySchemaElement{
			{AttributeName: aws.String(db.s.hashKeyName), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(db.s.primaryKey), KeyType: types.KeyTypeRange},
		}
	} else {
		in.AttributeDefinitions = []types.AttributeDefinition{
			{AttributeName: aws.String(db.s.primaryKey), AttributeType: types.ScalarAttributeTypeS},
		}
		in.KeySchema = []types.KeySchemaElement{
			{AttributeName: aws.String(db.s.primaryKey), KeyType: types.KeyTypeHash},
		}
	}
	_, err := db.client.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamodb: create table %q at %s: %w", table, db.where(), classify(err))
	}
	return db.waitActive(ctx, table)
}

func (db *DB) waitActive(ctx context.Context, table string) error {
	w := dynamodb.NewTableExistsWaiter(db.client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, db.s.tableTimeout); err != nil {
		return fmt.Errorf("dynamodb: table %q at %s did not become ACTIVE within %s: %w", table, db.where(), db.s.tableTimeout, classify(err))
	}
	return nil
}

// checkKeySchema compares an existing table's key with the properties, so
// that a mismatch is one clear error at Open rather than a
// ValidationException on every operation.
func (db *DB) checkKeySchema(table string, desc *types.TableDescription) error {
	var hash, rng string
	for _, k := range desc.KeySchema {
		switch k.KeyType {
		case types.KeyTypeHash:
			hash = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			rng = aws.ToString(k.AttributeName)
		}
	}
	actual := fmt.Sprintf("hash key %q", hash)
	if rng != "" {
		actual += fmt.Sprintf(" and range key %q", rng)
	}
	if db.s.keyType == KeyTypeHashAndRange {
		if hash != db.s.hashKeyName {
			return &adapters.ConfigError{Key: PropHashKeyName, Value: db.s.hashKeyName, Allowed: fmt.Sprintf("the key of table %q, which has %s", table, actual)}
		}
		if rng != db.s.primaryKey {
			return &adapters.ConfigError{Key: PropPrimaryKey, Value: db.s.primaryKey, Allowed: fmt.Sprintf("the key of table %q, which has %s", table, actual)}
		}
		return nil
	}
	if rng != "" {
		return &adapters.ConfigError{Key: PropPrimaryKeyType, Value: db.s.keyType, Allowed: fmt.Sprintf("%s with %s=%s, as table %q has %s", KeyTypeHashAndRange, PropHashKeyName, hash, table, actual)}
	}
	if hash != db.s.primaryKey {
		return &adapters.ConfigError{Key: PropPrimaryKey, Value: db.s.primaryKey, Allowed: fmt.Sprintf("the key of table %q, which has %s", table, actual)}
	}
	return nil
}

// where names the server in messages, without secrets.
func (db *DB) where() string {
	if db.s.endpoint == "" {
		return "AWS DynamoDB " + db.s.region
	}
	return adapters.MaskURL(db.s.endpoint)
}

func (db *DB) keyDescription() string {
	if db.s.keyType == KeyTypeHashAndRange {
		return fmt.Sprintf("hash key %q and range key %q, both of type S", db.s.hashKeyName, db.s.primaryKey)
	}
	return fmt.Sprintf("hash key %q of type S", db.s.primaryKey)
}

// Describe implements adapters.Describer: endpoint, region and table.
func (db *DB) Describe() string {
	d := fmt.Sprintf("%s region %s table %s", db.where(), db.s.region, db.s.table)
	if db.s.keyType == KeyTypeHashAndRange {
		d += fmt.Sprintf(" (%s=%s)", db.s.hashKeyName, db.s.hashKeyValue)
	}
	if db.s.consistentReads {
		d += " consistent reads"
	}
	if db.dummyCredentials {
		d += " (no AWS credentials found: placeholder keys)"
	}
	return d
}

// Capabilities implements adapters.Capable: a hash-keyed table scans in
// hash order, not key order.
func (db *DB) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{UnorderedScan: db.s.keyType == KeyTypeHash}
}

// Close releases idle connections. The SDK client holds nothing else.
func (db *DB) Close() error {
	if db.idle != nil {
		db.idle.CloseIdleConnections()
	}
	return nil
}

// DeleteTable drops table and waits (bounded by ctx and
// dynamodb.createTableTimeout) until it is gone. Tests use it to clean up.
func (db *DB) DeleteTable(ctx context.Context, table string) error {
	_, err := db.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return nil
	}
	if err != nil {
		return db.fail(fmt.Errorf("dynamodb: delete table %q: %w", table, classify(err)))
	}
	w := dynamodb.NewTableNotExistsWaiter(db.client, func(o *dynamodb.TableNotExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, db.s.tableTimeout); err != nil {
		return db.fail(fmt.Errorf("dynamodb: table %q not deleted within %s: %w", table, db.s.tableTimeout, classify(err)))
	}
	return nil
}

// fail scrubs the secret key from an error's text.
func (db *DB) fail(err error) error { return redact(err, db.secret) }

// placeholders for expression attribute names and values, built once.
var namePH, valuePH = func() (n, v [128]string) {
	for i := range n {
		n[i] = "#f" + strconv.Itoa(i)
		v[i] = ":v" + strconv.Itoa(i)
	}
	return
}()

func nameAt(i int) string {
	if i < len(namePH) {
		return namePH[i]
	}
	return "#f" + strconv.Itoa(i)
}

func valueAt(i int) string {
	if i < len(valuePH) {
		return valuePH[i]
	}
	return ":v" + strconv.Itoa(i)
}
