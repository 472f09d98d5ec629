package explore

import (
	"testing"

	"eventsvc/conformance/mutate"
)

// TestNearMissesBeyondTheHeadRotateBySeed: every run sends the likeliest
// near-misses of a credential first, in their order; past them, each
// seed starts from another, so that runs of other seeds send the
// usernames', the client ids' and the rest's in turn, and a run whose
// budget allows them all sends each once.
func TestNearMissesBeyondTheHeadRotateBySeed(t *testing.T) {
	head, all := mutate.CredentialNearMissHead, mutate.CredentialNearMisses()
	firstAfterHead := map[int]bool{}
	for seed := range uint64(all) {
		r := &runner{o: Options{Seed: seed}}
		sent := map[int]bool{}
		for k := range all {
			i := r.nextNearMiss()
			if k < head && i != k {
				t.Fatalf("seed %d: near-miss %d is variant %d, want the head in its order", seed, k, i)
			}
			sent[i] = true
			if k == head {
				firstAfterHead[i] = true
			}
		}
		if len(sent) != all {
			t.Errorf("seed %d sends %d of the %d near-misses in %d failed logins", seed, len(sent), all, all)
		}
	}
	if len(firstAfterHead) != all-head {
		t.Errorf("the first near-miss after the head is one of %d variants over the seeds, want each of the %d", len(firstAfterHead), all-head)
	}
}
