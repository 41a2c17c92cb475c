package analyzers

import (
	"slices"
	"strings"
)

// hookKind is how often a framework calls a hook method.
type hookKind int

const (
	notHook hookKind = iota
	perStepHook
	perEpochHook
	periodicHook // called from the step loop on some steps only: save, evaluation
)

// hookFamily is one framework's table of implicit-step-loop hooks (SPEC §3). A method is a
// hook when its name is in the table and its class derives (directly or through project
// classes) from one of Bases — or, for names no other library uses, from anything.
type hookFamily struct {
	Framework string
	// Bases are suffixes of qualified base-class names ("LightningModule", "Callback"), or
	// a module prefix ending in ".*" ("torch.nn.*").
	Bases []string
	// Distinctive names are recognised in any class: no one else calls a method
	// `training_step` or `after_train_iter`.
	Distinctive bool
	PerStep     []string
	PerEpoch    []string
	// Periodic hooks run from the step loop on save, evaluation or logging steps.
	Periodic []string
}

var hookFamilies = []hookFamily{
	{
		Framework: "PyTorch Lightning", Bases: []string{"LightningModule", "Callback", "LightningDataModule"}, Distinctive: true,
		PerStep: []string{"training_step", "validation_step", "test_step", "predict_step",
			"on_train_batch_start", "on_train_batch_end", "on_validation_batch_start", "on_validation_batch_end",
			"on_test_batch_start", "on_test_batch_end", "on_predict_batch_start", "on_predict_batch_end",
			"on_before_backward", "on_after_backward", "on_before_optimizer_step", "on_before_zero_grad",
			"optimizer_step", "optimizer_zero_grad", "training_step_end", "validation_step_end", "on_before_batch_transfer", "on_after_batch_transfer", "transfer_batch_to_device"},
		PerEpoch: []string{"on_train_epoch_start", "on_train_epoch_end", "on_validation_epoch_start", "on_validation_epoch_end",
			"on_test_epoch_start", "on_test_epoch_end", "on_predict_epoch_start", "on_predict_epoch_end",
			"training_epoch_end", "validation_epoch_end", "test_epoch_end", "on_epoch_start", "on_epoch_end"},
	},
	{
		Framework: "Hugging Face Trainer", Bases: []string{"TrainerCallback"},
		PerStep:  []string{"on_step_begin", "on_step_end", "on_substep_end", "on_optimizer_step", "on_pre_optimizer_step", "on_prediction_step"},
		PerEpoch: []string{"on_epoch_begin", "on_epoch_end"},
	},
	{
		// transformers trainer.py: _maybe_log_save_evaluate() calls _evaluate() when
		// control.should_evaluate and _save_checkpoint() when control.should_save;
		// _prepare_inputs() runs on every batch of training_step().
		Framework: "Hugging Face Trainer", Bases: []string{"Trainer", "Seq2SeqTrainer", "SFTTrainer", "DPOTrainer", "RewardTrainer", "GRPOTrainer"},
		PerStep:  []string{"_prepare_inputs", "training_step", "compute_loss", "prediction_step"},
		Periodic: []string{"_save_checkpoint", "_evaluate", "evaluate", "_maybe_log_save_evaluate", "save_model", "_save", "log"},
	},
	{
		// trl < 0.12 PPOTrainer.step() runs batched_forward_pass() and train_minibatch() for
		// every PPO step (trl/trainer/ppo_trainer.py).
		Framework: "trl PPOTrainer", Bases: []string{"PPOTrainer"},
		PerStep: []string{"step", "batched_forward_pass", "train_minibatch", "compute_rewards"},
	},
	{
		// olmo-core's Trainer calls every callback's pre_step/post_step around each train
		// step (olmo_core/train/trainer.py, Callback in olmo_core/train/callbacks/callback.py).
		Framework: "olmo-core", Bases: []string{"olmo_core.train.callbacks.Callback", "olmo_core.train.callbacks.callback.Callback"},
		PerStep: []string{"pre_step", "post_step", "post_train_batch", "pre_load_batch"},
	},
	{
		// SimulEval's evaluator asks the agent for a decision at every step of a simultaneous
		// translation (simuleval/agents/agent.py: policy, update_states_read).
		Framework: "SimulEval", Bases: []string{"Agent", "TextAgent", "SpeechAgent", "simuleval.agents.Agent"},
		PerStep: []string{"policy", "update_states_read", "update_states_write", "predict"},
	},
	{
		Framework: "MMEngine/MMCV", Bases: []string{"Hook"}, Distinctive: true,
		PerStep:  []string{"before_train_iter", "after_train_iter", "before_val_iter", "after_val_iter", "before_test_iter", "after_test_iter"},
		PerEpoch: []string{"before_train_epoch", "after_train_epoch", "before_val_epoch", "after_val_epoch", "before_test_epoch", "after_test_epoch"},
	},
	{
		Framework: "MMEngine/MMCV", Bases: []string{"Hook"},
		PerStep:  []string{"before_iter", "after_iter", "_before_iter", "_after_iter"},
		PerEpoch: []string{"before_epoch", "after_epoch", "_before_epoch", "_after_epoch"},
	},
	{
		Framework: "torch.optim", Bases: []string{"Optimizer", "optim.Optimizer", "torch.optim.Optimizer"},
		PerStep: []string{"step"},
	},
	{
		// accelerate's hooks run around every forward of the module they are attached to.
		Framework: "accelerate", Bases: []string{"ModelHook", "AlignDevicesHook", "SequentialHook"},
		PerStep: []string{"pre_forward", "post_forward"},
	},
	{
		Framework: "PyTorch", Bases: []string{"Module", "nn.Module", "torch.nn.Module", "LightningModule", "PreTrainedModel", "ModelMixin", "BaseModule", "torch.nn.*"},
		PerStep: []string{"forward"},
	},
}

// registrars are the torch methods that register a function PyTorch then calls by itself,
// by the method's name: Module._call_impl runs every forward pre-hook and forward hook on
// each call of the module (torch/nn/modules/module.py), autograd runs backward hooks and
// Tensor.register_hook hooks on each backward (torch/utils/hooks.py, torch/_tensor.py), and
// Optimizer.step runs its step pre- and post-hooks on each step (torch/optim/optimizer.py,
// the `profile_hook_step` wrapper).
var registrars = map[string]string{
	"register_forward_pre_hook":          "PyTorch runs a forward pre-hook on every forward of its module",
	"register_forward_hook":              "PyTorch runs a forward hook on every forward of its module",
	"register_module_forward_pre_hook":   "PyTorch runs a global forward pre-hook on every forward of every module",
	"register_module_forward_hook":       "PyTorch runs a global forward hook on every forward of every module",
	"register_full_backward_pre_hook":    "PyTorch runs a backward pre-hook on every backward through its module",
	"register_full_backward_hook":        "PyTorch runs a backward hook on every backward through its module",
	"register_backward_hook":             "PyTorch runs a backward hook on every backward through its module",
	"register_module_full_backward_hook": "PyTorch runs a global backward hook on every backward of every module",
	"register_hook":                      "PyTorch runs a tensor hook on every backward through the tensor",
	"register_post_accumulate_grad_hook": "PyTorch runs it on every backward, when the gradient is accumulated",
	"register_step_pre_hook":             "the optimizer runs a step pre-hook on every step",
	"register_step_post_hook":            "the optimizer runs a step post-hook on every step",
	"register_optimizer_step_pre_hook":   "every optimizer runs a global step pre-hook on every step",
	"register_optimizer_step_post_hook":  "every optimizer runs a global step post-hook on every step",
}

// methodHook classifies a method by name and (qualified) base classes.
func methodHook(name string, bases []string, stepNames map[string]bool) (hookKind, string) {
	if stepNames[name] {
		return perStepHook, "listed in step-loop-names"
	}
	// Families the class derives from come first, so a Hugging Face Trainer's
	// training_step is not taken for Lightning's; a distinctive name alone comes last.
	if k, fw := matchFamilies(name, bases, false); k != notHook {
		return k, fw
	}
	k, _ := matchFamilies(name, bases, true)
	if k == notHook {
		return notHook, ""
	}
	// Known by its name alone: say every framework that calls a hook of that name.
	var fws []string
	for _, fam := range hookFamilies {
		for _, h := range slices.Concat(fam.PerStep, fam.PerEpoch, fam.Periodic) {
			if h == name && !slices.Contains(fws, fam.Framework) {
				fws = append(fws, fam.Framework)
			}
		}
	}
	return k, strings.Join(fws, " or ")
}

func matchFamilies(name string, bases []string, byNameAlone bool) (hookKind, string) {
	for _, fam := range hookFamilies {
		matchBase := byNameAlone && fam.Distinctive
		for _, b := range bases {
			for _, want := range fam.Bases {
				// "torch.nn.*": any torch.nn layer (`class ChunkedConv(nn.Conv2d)`) is a Module.
				if b == want || strings.HasSuffix(b, "."+want) || strings.HasSuffix(want, ".*") && strings.HasPrefix(b, strings.TrimSuffix(want, "*")) {
					matchBase = true
				}
			}
		}
		if !matchBase {
			continue
		}
		for _, h := range fam.PerStep {
			if h == name {
				return perStepHook, fam.Framework
			}
		}
		for _, h := range fam.PerEpoch {
			if h == name {
				return perEpochHook, fam.Framework
			}
		}
		if slices.Contains(fam.Periodic, name) {
			return periodicHook, fam.Framework
		}
	}
	return notHook, ""
}

// igniteEvent classifies an Ignite event expression (`Events.ITERATION_COMPLETED`,
// `Events.ITERATION_COMPLETED(every=100)`), returning the kind and a period when given.
func igniteEvent(text string) (hookKind, string, int) {
	switch {
	case strings.Contains(text, "ITERATION_COMPLETED") || strings.Contains(text, "ITERATION_STARTED") ||
		strings.Contains(text, "GET_BATCH_COMPLETED") || strings.Contains(text, "GET_BATCH_STARTED"):
		if i := strings.Index(text, "every="); i >= 0 {
			return perStepHook, "Ignite", leadingInt(text[i+len("every="):])
		}
		return perStepHook, "Ignite", 0
	case strings.Contains(text, "EPOCH_COMPLETED") || strings.Contains(text, "EPOCH_STARTED"):
		return perEpochHook, "Ignite", 0
	}
	return notHook, "", 0
}

func leadingInt(s string) int {
	n := 0
	for _, r := range strings.TrimSpace(s) {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
		if n > 1<<30 {
			return 0
		}
	}
	return n
}
