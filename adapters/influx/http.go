package influx

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"benchtop/adapters"
)

// gzipPool reuses compressors and their output buffers between writes.
var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return &gzipState{zw: zw}
}}

type gzipState struct {
	zw  *gzip.Writer
	buf bytes.Buffer
}

// WriteLines implements adapters.LineWriter: one POST of body to the write API,
// gzip-compressed when influx.gzip is set. The whole request, connection
// included, is bounded by influx.timeout and by ctx.
func (d *DB) WriteLines(ctx context.Context, body []byte, lines int) error {
	payload := body
	var gz *gzipState
	if d.cfg.Gzip {
		gz = gzipPool.Get().(*gzipState)
		defer gzipPool.Put(gz)
		gz.buf.Reset()
		gz.zw.Reset(&gz.buf)
		if _, err := gz.zw.Write(body); err != nil {
			return fmt.Errorf("influx: write %d lines: gzip: %w", lines, err)
		}
		if err := gz.zw.Close(); err != nil {
			return fmt.Errorf("influx: write %d lines: gzip: %w", lines, err)
		}
		payload = gz.buf.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.writeURL, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("influx: write %d lines to %s: %w", lines, d.where(), err)
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if gz != nil {
		req.Header.Set("Content-Encoding", "gzip")
	}
	// The description is only built for an error: a success costs nothing
	// here (MaskURL parses the URL).
	return d.do(req, "write", func() string { return fmt.Sprintf("write %d lines to %s", lines, d.where()) }, nil)
}

// do sends req and checks for a 2xx answer, decoding a JSON body into out
// when out is not nil. what names the request in errors.
func (d *DB) do(req *http.Request, op string, what func() string, out any) error {
	if d.auth != "" {
		req.Header.Set("Authorization", d.auth)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return transportError("influx: "+what(), err)
	}
	defer func() {
		// Drain a little so that the connection is reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		he := statusError(op, resp)
		return adapters.WithKind(KindForStatus(he.Status), fmt.Errorf("influx: %s: %w", what(), he))
	}
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, 64<<20))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("influx: %s: decode the answer: %w", what(), err)
	}
	return nil
}

// ping checks that the server answers GET /ping.
func (d *DB) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.cfg.URL+"/ping", nil)
	if err != nil {
		return fmt.Errorf("influx: ping %s: %w", adapters.MaskURL(d.cfg.URL), err)
	}
	return d.do(req, "ping", func() string { return "ping " + adapters.MaskURL(d.cfg.URL) }, nil)
}

// queryResponse is the JSON answer of the 1.x /query endpoint.
type queryResponse struct {
	Results []struct {
		Error  string `json:"error"`
		Series []struct {
			Name    string   `json:"name"`
			Columns []string `json:"columns"`
			Values  [][]any  `json:"values"`
		} `json:"series"`
	} `json:"results"`
	Error string `json:"error"`
}

// query runs one InfluxQL statement through /query (GET for reads, POST
// for statements that change something, as the 1.x API requires). The
// v2 API is asked through its 1.x compatibility endpoint, with the bucket
// as database.
func (d *DB) query(ctx context.Context, method, stmt, db string) (*queryResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	q := url.Values{}
	q.Set("q", stmt)
	if db != "" {
		q.Set("db", db)
	}
	if d.cfg.RP != "" && db != "" {
		q.Set("rp", d.cfg.RP)
	}
	var req *http.Request
	var err error
	if method == http.MethodPost {
		req, err = http.NewRequestWithContext(ctx, method, d.cfg.URL+"/query", strings.NewReader(q.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		req, err = http.NewRequestWithContext(ctx, method, d.cfg.URL+"/query?"+q.Encode(), nil)
	}
	what := fmt.Sprintf("query %q on %s", shorten(stmt, 120), adapters.MaskURL(d.cfg.URL))
	if err != nil {
		return nil, fmt.Errorf("influx: %s: %w", what, err)
	}
	var out queryResponse
	if err := d.do(req, "query", func() string { return what }, &out); err != nil {
		return nil, err
	}
	if out.Error != "" {
		return nil, fmt.Errorf("influx: %s: %s", what, out.Error)
	}
	for _, r := range out.Results {
		if r.Error != "" {
			return nil, fmt.Errorf("influx: %s: %s", what, r.Error)
		}
	}
	return &out, nil
}

// Exec runs one InfluxQL statement that changes something (CREATE, DROP,
// DELETE) with POST /query on the adapter's database.
func (d *DB) Exec(ctx context.Context, stmt string) error {
	_, err := d.query(ctx, http.MethodPost, stmt, d.database())
	return err
}

func (d *DB) database() string {
	if d.cfg.API == "v2" {
		return d.cfg.Bucket
	}
	return d.cfg.DB
}

// ensureDatabase creates the v1 database when SHOW DATABASES does not
// list it (CREATE DATABASE alone would need admin rights even when the
// database exists).
func (d *DB) ensureDatabase(ctx context.Context) error {
	res, err := d.query(ctx, http.MethodGet, "SHOW DATABASES", "")
	if err != nil {
		return err
	}
	for _, r := range res.Results {
		for _, s := range r.Series {
			for _, v := range s.Values {
				if len(v) > 0 && v[0] == d.cfg.DB {
					return nil
				}
			}
		}
	}
	_, err = d.query(ctx, http.MethodPost, "CREATE DATABASE "+QuoteIdent(d.cfg.DB), "")
	return err
}

// CountPoints implements adapters.PointCounter with
// SELECT count(*) FROM "measurement" WHERE "tag"='value' AND ...
// Every field gets a count; a point counts once, so the largest count is
// the number of points (fields missing from some points count less).
func (d *DB) CountPoints(ctx context.Context, measurement string, tags map[string]string) (int64, error) {
	var b strings.Builder
	b.WriteString("SELECT count(*) FROM ")
	b.WriteString(QuoteIdent(measurement))
	if len(tags) > 0 {
		keys := make([]string, 0, len(tags))
		for k := range tags {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i == 0 {
				b.WriteString(" WHERE ")
			} else {
				b.WriteString(" AND ")
			}
			b.WriteString(QuoteIdent(k))
			b.WriteString(" = ")
			b.WriteString(QuoteString(tags[k]))
		}
	}
	res, err := d.query(ctx, http.MethodGet, b.String(), d.database())
	if err != nil {
		return 0, fmt.Errorf("count points: %w", err)
	}
	var n int64
	for _, r := range res.Results {
		for _, s := range r.Series {
			for _, row := range s.Values {
				for i, v := range row {
					if i < len(s.Columns) && s.Columns[i] == "time" {
						continue
					}
					num, ok := v.(json.Number)
					if !ok {
						continue
					}
					c, err := num.Int64()
					if err != nil {
						return 0, fmt.Errorf("count points of %s: bad count %q", measurement, num)
					}
					n = max(n, c)
				}
			}
		}
	}
	return n, nil
}

// QuoteIdent quotes an InfluxQL identifier: "name", with " and \ escaped.
func QuoteIdent(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// QuoteString quotes an InfluxQL string literal: 'value', with ' and \
// escaped.
func QuoteString(s string) string {
	return `'` + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + `'`
}
