package report

import (
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

func TestTheSchemaRefusesAReportThatDoesNotFollowIt(t *testing.T) {
	bad := `{"schemaVersion": 2, "outcome": "green"}`
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(ReportSchema), gojsonschema.NewStringLoader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid() {
		t.Fatal("the schema accepts a report without its fields and with an unknown outcome")
	}
}
