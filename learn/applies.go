package learn

import (
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/structure"
)

// An OptionGroup is a set of Options fields that apply to some methods
// only. Validate rejects any of them set (not zero) for another method; a
// command-line tool can reject the flags that set them.
type OptionGroup struct {
	// What names the group in messages ("recursive grouping options").
	What string
	// Fields are the fields, as a Go program names them from Options
	// ("RG.Tau").
	Fields []string
	// Applies reports whether the fields apply to a method.
	Applies func(m Method) bool
	// Methods names the methods they apply to, for messages.
	Methods string
	// set reports whether any of the fields is set in o.
	set func(o *Options) bool
}

// OptionGroups returns the groups of method-specific options, in the
// order Validate checks them.
func OptionGroups() []OptionGroup { return append([]OptionGroup(nil), optionGroups...) }

var optionGroups = []OptionGroup{
	{"distance options (Kind, Rank)", []string{"Distance.Kind", "Distance.Rank"}, Method.UsesDistances,
		"the distance-based methods (clnj, clrg, nj, rg, clblind, mst)",
		func(o *Options) bool { return o.Distance.Kind != distance.Auto || o.Distance.Rank != 0 }},
	{"pseudo-counts on the pairwise tables (Distance.Pseudo)", []string{"Distance.Pseudo"},
		func(m Method) bool { return m.UsesDistances() || m == ChowLiu },
		"methods that estimate distances or mutual information from tables",
		func(o *Options) bool { return o.Distance.Pseudo != 0 }},
	{"contraction options", []string{"Contract.Rule", "Contract.Threshold", "Contract.KeepHiddenEdges", "Contract.Prune", "Contract.AutoBudget"},
		Method.Contracts, "clnj, clrg, nj and rg",
		func(o *Options) bool { return o.Contract != (ContractOptions{}) }},
	{"recursive grouping options", []string{"RG.Tau", "RG.Eps", "RG.ParentEps", "RG.Samples", "RG.Grouping", "RG.Range"},
		Method.UsesRG, "rg and clrg",
		func(o *Options) bool { return o.RG != (structure.RGOptions{}) }},
	{"quartet options", []string{"Quartet.Test", "Quartet.K", "Quartet.Reps", "Quartet.Order", "Quartet.Candidates"},
		func(m Method) bool { return m == Quartet }, "quartet",
		func(o *Options) bool { return o.Quartet != (QuartetOptions{}) }},
	{"regularized CLGrouping options", []string{"Reg.MaxHidden", "Reg.SampleHidden"},
		Method.Regularized, "regclnj and regclrg",
		func(o *Options) bool { return o.Reg != (RegOptions{}) }},
	{"latent class options (LCM.MaxClasses, LCM.Restarts, LCM.BLRT, LCM.BLRTStarts, LCM.BLRTFirst, LCM.Covariates)", []string{"LCM.MaxClasses", "LCM.Restarts", "LCM.BLRT", "LCM.BLRTStarts", "LCM.BLRTFirst", "LCM.Covariates"},
		func(m Method) bool { return m == LCM }, "lcm",
		func(o *Options) bool {
			l := o.LCM
			return len(l.Covariates) > 0 || l.MaxClasses != 0 || l.Restarts != 0 || l.BLRT != 0 || l.BLRTStarts != 0 || l.BLRTFirst != 0
		}},
	{"random starts, restarts, spectral parameters and starts, and EM's warm-up samples",
		[]string{"Fit.EM.Restarts", "Fit.Init", "Fit.Params", "Fit.Linker", "Fit.SpectralTol", "Fit.EM.Sample", "Fit.EM.RestartIter", "Fit.EM.KeepInit"},
		func(m Method) bool { return !m.Regularized() },
		"EM or spectral parameters on a learned tree (regclnj and regclrg run their own local EM from moment starts)",
		func(o *Options) bool {
			f := o.Fit
			return f.Init != model.InitSurrogate || f.Params != model.ParamsEM || f.Linker != model.LinkerMStar || f.SpectralTol != 0 ||
				f.EM.Restarts != 0 || f.EM.RestartIter != 0 || f.EM.KeepInit || f.EM.Sample != 0
		}},
}
