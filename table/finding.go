package table

import "fmt"

// Mode selects how strictly tables are validated when opened.
type Mode int

const (
	// Lenient shows every table whose rows can be read and records what
	// is wrong with it as findings. It is the mount's default.
	Lenient Mode = iota
	// Strict refuses a table with any error finding.
	Strict
)

// Severities of findings.
const (
	SevError   = "error"   // a MUST of the spec is violated
	SevWarning = "warning" // a SHOULD is not followed, or a lenient reading was needed
)

// Finding is one problem found with a table or an object of it.
type Finding struct {
	Path     string // HDF5 path of the offending object
	Severity string // "error" or "warning"
	Rule     string // spec section, e.g. "§7.3"; "HDF5" for objects that cannot be read
	Msg      string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s %s", f.Path, f.Severity, f.Rule, f.Msg)
}

// findings collects findings for one table.
type findings []Finding

func (fs *findings) errorf(path, rule, format string, args ...any) {
	*fs = append(*fs, Finding{Path: path, Severity: SevError, Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (fs *findings) warnf(path, rule, format string, args ...any) {
	*fs = append(*fs, Finding{Path: path, Severity: SevWarning, Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether any finding has error severity.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SevError {
			return true
		}
	}
	return false
}
