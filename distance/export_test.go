package distance

// DiscreteDist exposes discreteDist to the external tests.
var DiscreteDist = discreteDist
