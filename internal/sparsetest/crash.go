package sparsetest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
)

// CheckCrashes rolls back the copy of the HDF5 file path in every crash
// state (h5core.RecoverFS) and calls recovered with the state and the
// recovered file; then checks that libhdf5 lists each state's file as it
// was before recovery as it lists orig (Libhdf5Listing, SameListing). It
// returns the first failure, naming the crash state.
func CheckCrashes(crashes []crashtest.Crash, path, orig string, recovered func(c crashtest.Crash, file string) error) error {
	var before []string
	for _, c := range crashes {
		cp := c.Path(path)
		b, err := os.ReadFile(cp)
		if err != nil {
			return err
		}
		pre := filepath.Join(c.Dir, "before.h5")
		if err := os.WriteFile(pre, b, 0o644); err != nil {
			return err
		}
		before = append(before, pre)
		if _, err := h5core.RecoverFS(h5core.OSFS, cp, nil); err != nil {
			return fmt.Errorf("%s: recover: %v", c, err)
		}
		if err := recovered(c, cp); err != nil {
			return fmt.Errorf("%s: %v", c, err)
		}
	}
	listings, err := Libhdf5Listing(append([]string{orig}, before...)...)
	if err != nil {
		return err
	}
	for _, pre := range before {
		if err := SameListing(listings[orig], listings[pre]); err != nil {
			return fmt.Errorf("%s before recovery: %v", pre, err)
		}
	}
	return nil
}
