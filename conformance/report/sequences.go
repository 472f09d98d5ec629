package report

// An exploration's sequences are reported as scenarios are, after the
// scenarios of a run that explores (package explore): each at a place of
// its own, with its replay file.
const (
	// SequenceFile is the file of the places of an exploration's
	// sequences: "explore:7" is sequence 7, as "reading.feature:20" is a
	// scenario.
	SequenceFile = "explore"
	// ReplayDir is the folder, under the report folder, of the replay
	// files of an exploration's findings (Failure.Replay).
	ReplayDir = "explore"
)

// Sequence reports whether s is a sequence of an exploration, not a
// scenario.
func (s *ScenarioResult) Sequence() bool { return s.File == SequenceFile }
