package discrete

// StarModel exports starModel to the external tests.
var StarModel = starModel
