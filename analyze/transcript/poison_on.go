//go:build pmcheck_poison

package transcript

// poisonViews makes the builder overwrite each line and the decoder's
// arena once the line is summarised, so a string the model kept without
// cloning (a view into them) shows up as garbage in every test and golden:
//
//	go test -tags pmcheck_poison ./...
const poisonViews = true
