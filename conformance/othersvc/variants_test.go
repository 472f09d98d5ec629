package othersvc

import "testing"

// TestVariantsShowTheirChoice: each correct variant with a shows function
// answers as it chooses, and the second implementation as described does
// not, so that a variant that passes the suite's checks passes them with
// its choice made.
func TestVariantsShowTheirChoice(t *testing.T) {
	for _, v := range Variants() {
		if v.Shows == nil {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			if err := v.Shows(NewClient(t, v.Config)); err != nil {
				t.Fatalf("the choice does not show: %v", err)
			}
			if err := v.Shows(NewClient(t, Config{})); err == nil {
				t.Fatal("the second implementation as described shows the choice too")
			}
		})
	}
}
