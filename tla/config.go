package tla

import (
	"fmt"
	"strings"
)

// Variant selects the model: the atomic commit or one of its two broken
// variants. The zero value is invalid.
type Variant uint8

// Variants, named as the TLA+ constant Variant spells them.
const (
	variantInvalid Variant = iota
	// Atomic: a commit is one record, applied in one step.
	Atomic
	// SplitRecords: a commit is written as two records, event then state.
	SplitRecords
	// PartialApply: a record's event is applied, then its state, with a
	// visible step in between.
	PartialApply
	variantEnd
)

var variantNames = [...]string{"invalid", "Atomic", "SplitRecords", "PartialApply"}

// String names the variant as the .cfg files do.
func (v Variant) String() string {
	if v < variantEnd {
		return variantNames[v]
	}
	return fmt.Sprintf("Variant(%d)", uint8(v))
}

// ParseVariant reads a variant name (case-insensitive).
func ParseVariant(s string) (Variant, error) {
	for v := Atomic; v < variantEnd; v++ {
		if strings.EqualFold(variantNames[v], s) {
			return v, nil
		}
	}
	return variantInvalid, fmt.Errorf("variant %q refused: want one of Atomic, SplitRecords, PartialApply", s)
}

// Defect is a planted broker bug the invariants must catch, as the TLA+
// constant Defect names it. The zero value is invalid; NoDefect is the
// design.
type Defect uint8

// Defects.
const (
	defectInvalid Defect = iota
	// NoDefect: the broker as designed.
	NoDefect
	// DefectCommitWithoutQuorum: the leader marks an entry committed (so it
	// can be acknowledged) once any broker, itself included, holds it on
	// disk.
	DefectCommitWithoutQuorum
	// DefectElectStale: an election ignores whether the candidate's log is
	// up to date, so a failover can promote a broker missing a commit.
	DefectElectStale
	// DefectConditionAtProposal: a commit_if is written whatever the tail
	// is at apply time, as if judged when proposed.
	DefectConditionAtProposal
	defectEnd
)

var defectNames = [...]string{"invalid", "none", "CommitWithoutQuorum", "ElectStale", "ConditionAtProposal"}

// String names the defect as the .cfg files do.
func (d Defect) String() string {
	if d < defectEnd {
		return defectNames[d]
	}
	return fmt.Sprintf("Defect(%d)", uint8(d))
}

// Crashes are the ways a broker may crash and restart in a config (TLA+
// CrashKinds), as a bit set.
type Crashes uint8

// Crash kinds.
const (
	// CrashForget is the model's Crash: the commit mark and the applied
	// state are volatile, rebuilt by re-applying the log.
	CrashForget Crashes = 1 << iota
	// CrashKeep is the broker's (CrashKeep): it keeps both, stored in one
	// commit with what they cover.
	CrashKeep
	crashesAll = CrashForget | CrashKeep
)

// String names the crash kinds as a TLA+ set of CrashKinds.
func (c Crashes) String() string {
	var names []string
	if c&CrashForget != 0 {
		names = append(names, `"forget"`)
	}
	if c&CrashKeep != 0 {
		names = append(names, `"keep"`)
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// Model bounds the mirror's fixed-size state can hold.
const (
	// BrokersMax is the most brokers (spares included) a config may have.
	BrokersMax = 4
	// CommitsMax is the most commits a config may let clients propose.
	CommitsMax = 3
	// ReconfigsMax is the most membership changes a config may allow.
	ReconfigsMax = 3
	// TermMax is the highest MaxTerm a config may set.
	TermMax = 15
	keysMax = 2
	logMax  = 2*CommitsMax + ReconfigsMax
)

// Config is one model-checking configuration: the constants of one
// MC*.cfg file. Build it by field name.
type Config struct {
	// Name is the .cfg file's base name.
	Name    string
	Variant Variant
	// Brokers is how many brokers hold a replica (1..BrokersMax).
	Brokers int
	// MaxTerm is the highest term a broker may start an election for.
	MaxTerm int
	// MaxCommits is how many commits clients may propose (1..CommitsMax).
	MaxCommits int
	// Spares is how many of the brokers (the last ones) start outside the
	// configuration, free to be added; MaxReconfigs how many membership
	// changes leaders may propose (0..ReconfigsMax). Both 0: the model
	// without membership changes.
	Spares       int
	MaxReconfigs int
	Defect       Defect
	// Crashes are the ways a broker may crash (at least one); EmptyEntries
	// has a new leader append an empty entry of its term; ExpChoice lets a
	// commit_if's client pick its expected offset (1..MaxCommits).
	Crashes      Crashes
	EmptyEntries bool
	ExpChoice    bool
	// Invariants is false for a config explored in full with none checked.
	Invariants bool
	// Long marks a config too slow for TLC's default run and `make test`:
	// TLC_LONG=1 make tlc and go test ./tla -long explore it.
	Long bool
}

// Validate refuses a config the mirror's state cannot hold.
func (c Config) Validate() error {
	switch {
	case c.Variant == variantInvalid || c.Variant >= variantEnd:
		return fmt.Errorf("config %q refused: variant %d is not a valid variant", c.Name, uint8(c.Variant))
	case c.Defect == defectInvalid || c.Defect >= defectEnd:
		return fmt.Errorf("config %q refused: defect %d is not a valid defect (NoDefect for none)", c.Name, uint8(c.Defect))
	case c.Brokers < 1 || c.Brokers > BrokersMax:
		return fmt.Errorf("config %q refused: %d brokers, want 1..%d", c.Name, c.Brokers, BrokersMax)
	case c.MaxCommits < 1 || c.MaxCommits > CommitsMax:
		return fmt.Errorf("config %q refused: MaxCommits %d, want 1..%d", c.Name, c.MaxCommits, CommitsMax)
	case c.MaxTerm < 0 || c.MaxTerm > TermMax:
		return fmt.Errorf("config %q refused: MaxTerm %d, want 0..%d", c.Name, c.MaxTerm, TermMax)
	case c.Spares < 0 || c.Spares >= c.Brokers:
		return fmt.Errorf("config %q refused: %d spares of %d brokers, want 0..%d", c.Name, c.Spares, c.Brokers, c.Brokers-1)
	case c.MaxReconfigs < 0 || c.MaxReconfigs > ReconfigsMax:
		return fmt.Errorf("config %q refused: MaxReconfigs %d, want 0..%d", c.Name, c.MaxReconfigs, ReconfigsMax)
	case c.Crashes == 0 || c.Crashes&^crashesAll != 0:
		return fmt.Errorf("config %q refused: crash kinds %d, want a non-empty subset of forget and keep", c.Name, uint8(c.Crashes))
	case c.EmptyEntries && 2*c.MaxCommits+c.MaxReconfigs+c.MaxTerm > logMax:
		return fmt.Errorf("config %q refused: empty entries of %d terms do not fit a log of %d entries beside the commits and changes", c.Name, c.MaxTerm, logMax)
	}
	return nil
}

// String renders the config's constants.
func (c Config) String() string {
	return fmt.Sprintf("%s: Variant=%s Defect=%s Brokers=%d MaxTerm=%d MaxCommits=%d Spares=%d MaxReconfigs=%d CrashKinds=%s EmptyEntries=%t ExpChoice=%t invariants=%t",
		c.Name, c.Variant, c.Defect, c.Brokers, c.MaxTerm, c.MaxCommits, c.Spares, c.MaxReconfigs, c.Crashes, c.EmptyEntries, c.ExpChoice, c.Invariants)
}

// Configs returns the configs of the MC*.cfg files, main config first.
func Configs() []Config {
	f := CrashForget
	return []Config{
		{Name: "MCFelixAtomicCommit", Variant: Atomic, Brokers: 3, MaxTerm: 2, MaxCommits: 2, Defect: NoDefect, Crashes: f, Invariants: true},
		{Name: "MCSplitRecords", Variant: SplitRecords, Brokers: 3, MaxTerm: 2, MaxCommits: 1, Defect: NoDefect, Crashes: f, Invariants: true},
		{Name: "MCPartialApply", Variant: PartialApply, Brokers: 3, MaxTerm: 2, MaxCommits: 2, Defect: NoDefect, Crashes: f, Invariants: true},
		{Name: "MCSplitRecordsFull", Variant: SplitRecords, Brokers: 3, MaxTerm: 2, MaxCommits: 1, Defect: NoDefect, Crashes: f, Invariants: false},
		{Name: "MCPartialApplyFull", Variant: PartialApply, Brokers: 3, MaxTerm: 2, MaxCommits: 2, Defect: NoDefect, Crashes: f, Invariants: false},
		{Name: "MCDefectCommitWithoutQuorum", Variant: Atomic, Brokers: 3, MaxTerm: 2, MaxCommits: 2, Defect: DefectCommitWithoutQuorum, Crashes: f, Invariants: true},
		{Name: "MCDefectElectStale", Variant: Atomic, Brokers: 3, MaxTerm: 2, MaxCommits: 2, Defect: DefectElectStale, Crashes: f, Invariants: true},
		{Name: "MCDefectConditionAtProposal", Variant: Atomic, Brokers: 3, MaxTerm: 2, MaxCommits: 2, Defect: DefectConditionAtProposal, Crashes: f, Invariants: true},
		{Name: "MCFelixAtomicCommitTerm3", Variant: Atomic, Brokers: 3, MaxTerm: 3, MaxCommits: 2, Defect: NoDefect, Crashes: f, Invariants: true, Long: true},
		{Name: "MCReconfigure", Variant: Atomic, Brokers: 4, Spares: 1, MaxReconfigs: 1, MaxTerm: 1, MaxCommits: 2, Defect: NoDefect, Crashes: f, Invariants: true},
		{Name: "MCBrokerShape", Variant: Atomic, Brokers: 3, MaxTerm: 2, MaxCommits: 2, Defect: NoDefect, Crashes: CrashKeep, EmptyEntries: true, ExpChoice: true, Invariants: true, Long: true},
	}
}

// ConfigNames lists the config names, main config first.
func ConfigNames() []string {
	var names []string
	for _, c := range Configs() {
		names = append(names, c.Name)
	}
	return names
}

// Select picks a config by name and, if variant is not empty, sets its
// variant. With no name, the variant alone picks that variant's own config
// (the main config for Atomic); with neither, the main config.
func Select(name, variant string) (Config, error) {
	var v Variant
	if variant != "" {
		var err error
		if v, err = ParseVariant(variant); err != nil {
			return Config{}, err
		}
	}
	for _, c := range Configs() {
		switch {
		case name != "" && strings.EqualFold(c.Name, name):
			if v != variantInvalid {
				c.Variant = v
			}
			return c, nil
		case name == "" && (v == variantInvalid || v == c.Variant) && c.Invariants && c.Defect == NoDefect:
			return c, nil
		}
	}
	return Config{}, fmt.Errorf("config %q refused: unknown; want one of %s", name, strings.Join(ConfigNames(), ", "))
}
