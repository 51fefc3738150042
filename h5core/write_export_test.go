package h5core

// ApplyUncommitted writes everything tx has made so far to the file, as
// Commit does, but stops before the commit point (the journal stays hot):
// the file a crash just before it leaves, for tests of h5core_test.
func ApplyUncommitted(tx *Tx) error {
	if err := tx.check(); err != nil {
		return err
	}
	return tx.fail(tx.apply())
}
