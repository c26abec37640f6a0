package robotscolly

// ErrBypass is the error of a request the collector's transport would
// have sent itself.
var ErrBypass = errBypass
