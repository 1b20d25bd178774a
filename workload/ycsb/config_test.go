package ycsb

import (
	"errors"
	"testing"

	"benchtop/adapters"
)

func TestConfigDefaultsAreYCSBs(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("run", adapters.Properties{"recordcount": "10"})
	if err != nil {
		t.Fatal(err)
	}
	if c.FieldCount != 10 || c.FieldLength != 100 || c.ReadProportion != 0.95 || c.UpdateProportion != 0.05 ||
		c.RequestDist != "uniform" || c.MaxScanLength != 1000 || c.Table != "usertable" || c.FieldNamePrefix != "field" ||
		!c.ReadAllFields || c.WriteAllFields || c.ZeroPadding != 1 || c.InsertCount != 10 {
		t.Errorf("defaults differ from YCSB's CoreWorkload: %+v", c)
	}
	if got := c.Mix(); got != "read 95 / update 5, uniform" {
		t.Errorf("Mix() = %q", got)
	}
}

// FuzzParseConfig: any property values give a Config or a ConfigError,
// never a panic, and an accepted Config is consistent.
func FuzzParseConfig(f *testing.F) {
	f.Add("recordcount", "1000", "requestdistribution", "zipfian", "insertstart", "100")
	f.Add("minscanlength", "5", "maxscanlength", "1", "fieldlength", "0")
	f.Add("readproportion", "0", "updateproportion", "0", "insertcount", "-1")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, k3, v3 string) {
		props := adapters.Properties{"recordcount": "100", k1: v1, k2: v2, k3: v3}
		c, err := ParseConfig("run", props)
		if err != nil {
			var ce *adapters.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error is not a ConfigError: %v", err)
			}
			return
		}
		if c.FieldLength < 1 || c.MinScanLength > c.MaxScanLength || c.InsertCount < 0 {
			t.Fatalf("invalid config accepted: %+v", c)
		}
		if c.RecordCount > 0 && c.proportionSum() <= 0 {
			t.Fatalf("proportions sum to 0 accepted")
		}
	})
}
