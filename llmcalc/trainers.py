"""Training set-ups as the trainers configure them: what each one does to the memory of a LoRA or QLoRA step.

A LoRA or QLoRA plan depends on choices a trainer makes for its user: whether
it runs peft's ``prepare_model_for_kbit_training`` on a quantized base
(``qlora_preparation``), the dtype it trains the adapters in
(``adapter_dtype``), its default optimizer, whether it turns on gradient
checkpointing, and the LoRA rank, targets and dropout it sets when the user
sets none.  :data:`SETUPS` holds them, each read from the trainer's own code
at a named release (file and line in its ``sources``, the release in
references.bib under its ``reference`` key), and
:func:`setup_settings` turns one into the keywords of
:func:`llmcalc.planner.plan_training`.  :data:`DEFAULT_SETUP` is TRL's
``SFTTrainer``, Hugging Face's own trainer for supervised fine-tuning, which
Unsloth also runs (``unsloth/models/rl.py`` patches it); LLaMA-Factory and
axolotl have trainers of their own, built on transformers' ``Trainer``.

Unsloth is not a set-up here, and :func:`get_setup` refuses it: its default
gradient checkpointing (``use_gradient_checkpointing="unsloth"``) copies
each checkpointed hidden state to CPU memory, and it replaces transformers'
attention, MLP and loss with its own kernels, whose saved tensors were not
measured (see :data:`UNMODELLED_SETUPS`).

Examples
--------
>>> [setup.key for setup in SETUPS]
['trl-sft', 'llama-factory', 'axolotl', 'qlora-script']
>>> setup_settings("trl-sft", "qlora")
{'qlora_preparation': 'none', 'adapter_dtype': 'bf16', 'optimizer': 'adamw', 'checkpointing': True}
>>> setup_settings("llama-factory", "lora")
{'adapter_dtype': 'fp32', 'optimizer': 'adamw', 'checkpointing': True, 'rank': 8, 'lora_dropout': 0.0, \
'targets': 'all-linear'}
>>> get_setup("unsloth")
Traceback (most recent call last):
...
llmcalc.errors.RefusalValueError: the training set-up 'unsloth' is not modelled: its default gradient \
checkpointing copies each checkpointed hidden state to CPU memory and its own kernels replace transformers' \
attention, MLP and loss, whose saved tensors were not measured (unsloth 2026.10.9: models/llama.py:4579, \
unsloth_zoo gradient_checkpointing.py:598-621)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import _validate as check
from .config import ModelConfig, as_model_config
from .errors import refusal
from .lora import ALL_LINEAR

__all__ = ["AXOLOTL_RESTORED_LAYOUTS", "DEFAULT_SETUP", "SETUPS", "UNMODELLED_SETUPS", "TrainingSetup", "get_setup",
           "setup_settings"]


@dataclass(frozen=True)
class TrainingSetup:
    """One trainer's LoRA and QLoRA set-up at a named release, as its code configures it.

    ``qlora_preparation`` and ``adapter_dtype`` (one for LoRA, one for QLoRA)
    are values of :data:`llmcalc.planner.QLORA_PREPARATIONS` and
    :data:`llmcalc.planner.ADAPTER_DTYPES`; ``optimizer`` a key of
    :data:`llmcalc.planner.OPTIMIZERS`, the planner's name for the trainer's
    default ``optimizer_name``.  ``rank``, ``lora_dropout`` and ``targets``
    are None where the trainer sets none and takes peft's ``LoraConfig`` (or
    the user's) as given; the plan then keeps its own defaults.
    ``sources`` name the file and lines each value was read from, in the
    release ``version`` cited in references.bib as ``reference``.
    """

    key: str
    name: str
    version: str
    reference: str
    qlora_preparation: str
    lora_adapter_dtype: str
    qlora_adapter_dtype: str
    optimizer: str
    optimizer_name: str
    checkpointing: bool
    rank: int | None
    lora_dropout: float | None
    targets: str | None
    sources: tuple[str, ...]

    @property
    def label(self) -> str:
        """The name and release, as a plan names its set-up (``TRL SFTTrainer 1.16.0``)."""
        return f"{self.name} {self.version}"


SETUPS: tuple[TrainingSetup, ...] = (
    TrainingSetup(
        "trl-sft", "TRL SFTTrainer", "1.16.0", "hf-trl-1.16.0",
        qlora_preparation="none", lora_adapter_dtype="fp32", qlora_adapter_dtype="bf16",
        optimizer="adamw", optimizer_name="adamw_torch_fused", checkpointing=True,
        rank=None, lora_dropout=None, targets=None,
        sources=(
            "trl/trainer/sft_trainer.py:908-911: on a 4-bit or 8-bit model every trainable parameter is cast to "
            "bfloat16 after get_peft_model; no call of prepare_model_for_kbit_training in trl/trainer/",
            "trl/trainer/sft_trainer.py:856-857: under ZeRO-3 a model that is not quantized gets "
            "autocast_adapter_dtype=False (bf16 LoRA adapters)",
            "trl/trainer/base_config.py:62-63: gradient_checkpointing defaults to True",
            "transformers 5.25.0 training_args.py:806-811: optim defaults to adamw_torch_fused",
        ),
    ),
    TrainingSetup(
        "llama-factory", "LLaMA-Factory", "0.9.5", "llamafactory-0.9.5",
        qlora_preparation="none", lora_adapter_dtype="fp32", qlora_adapter_dtype="fp32",
        optimizer="adamw", optimizer_name="adamw_torch_fused", checkpointing=True,
        rank=8, lora_dropout=0.0, targets=ALL_LINEAR,
        sources=(
            "llamafactory/model/adapter.py:313-325: trainable parameters cast to float32 unless pure_bf16 or BAdam",
            "llamafactory/model/model_utils/checkpointing.py:143-178 (prepare_model_for_training): no call of "
            "prepare_model_for_kbit_training; norms upcast only with upcast_layernorm, False by default "
            "(hparams/model_args.py:153-155); gradient checkpointing unless disable_gradient_checkpointing, False "
            "by default (hparams/model_args.py:145-147)",
            "llamafactory/hparams/finetuning_args.py:73-84: lora_dropout 0.0, lora_rank 8, lora_target 'all'",
            "transformers 5.25.0 training_args.py:806-811: optim defaults to adamw_torch_fused",
        ),
    ),
    TrainingSetup(
        "axolotl", "axolotl", "0.19.0", "axolotl-0.19.0",
        qlora_preparation="none", lora_adapter_dtype="fp32", qlora_adapter_dtype="fp32",
        optimizer="adamw", optimizer_name="adamw_torch_fused", checkpointing=False,
        rank=None, lora_dropout=0.0, targets=None,
        sources=(
            "axolotl/loaders/model.py:435-489: prepare_model_for_kbit_training (line 1149), then, for a LoRA or "
            "QLoRA adapter, every module named '*norm*' and the embedding and head cast back to the model's dtype: "
            "the base leaves it as unprepared",
            "axolotl/utils/schemas/peft.py:53, 80, 124-125: lora_r has no default, lora_dropout 0.0, "
            "peft_autocast_adapter_dtype None (peft's fp32 adapters)",
            "axolotl/utils/schemas/config.py:606-607: gradient_checkpointing defaults to False",
            "axolotl/utils/schemas/training.py:122-123: optimizer defaults to adamw_torch_fused",
        ),
    ),
    TrainingSetup(
        "qlora-script", "QLoRA script (artidoro/qlora qlora.py)", "7f4e95a", "qlora-script-7f4e95a",
        qlora_preparation="norms", lora_adapter_dtype="bf16", qlora_adapter_dtype="bf16",
        optimizer="adamw-32bit", optimizer_name="paged_adamw_32bit", checkpointing=True,
        rank=64, lora_dropout=0.0, targets=ALL_LINEAR,
        sources=(
            "qlora.py:377: prepare_model_for_kbit_training; 396-405: LoRA layers cast to bfloat16 with --bf16, "
            "norms kept in float32, embed_tokens and lm_head cast back to bfloat16",
            "qlora.py:177-187 and 198-206: lora_r 64, lora_dropout 0.0, optim paged_adamw_32bit, "
            "gradient_checkpointing True; --lora_modules all: every linear layer but the head (248-258)",
        ),
    ),
)
"""The modelled set-ups, the default (:data:`DEFAULT_SETUP`) first."""

DEFAULT_SETUP = SETUPS[0].key
"""TRL's ``SFTTrainer``, the set-up a plan assumes when none is named."""

UNMODELLED_SETUPS: dict[str, str] = {
    "unsloth": "its default gradient checkpointing copies each checkpointed hidden state to CPU memory and its own "
               "kernels replace transformers' attention, MLP and loss, whose saved tensors were not measured "
               "(unsloth 2026.10.9: models/llama.py:4579, unsloth_zoo gradient_checkpointing.py:598-621)",
}
"""Trainers asked for by name that the planner refuses, and why."""

AXOLOTL_RESTORED_LAYOUTS = ("llama", "phi", "phi3", "gpt_neox", "starcoder2")
"""The dense layouts whose 16-bit parameters axolotl casts back after ``prepare_model_for_kbit_training``, whose
norms are named ``*norm*`` and whose embedding and head axolotl finds by name."""


def get_setup(key: str) -> TrainingSetup:
    """The set-up of :data:`SETUPS` named ``key``; :data:`UNMODELLED_SETUPS` are refused with their reason."""
    if isinstance(key, str) and key in UNMODELLED_SETUPS:
        raise refusal("setup_not_modelled", setup=key, reason=UNMODELLED_SETUPS[key])
    found = {setup.key: setup for setup in SETUPS}
    return found[check.choice("setup", key, tuple(found))]


def setup_settings(key: str, task: str, *, zero_stage: int = 0, cfg: ModelConfig | None = None) -> dict[str, Any]:
    """The keywords of :func:`~llmcalc.planner.plan_training` that set-up ``key`` sets for ``task``.

    Only what the trainer sets is returned; the rest keeps the plan's own
    defaults.  ``task`` ``"full"`` gets the optimizer and checkpointing only.
    TRL's ``SFTTrainer`` keeps LoRA adapters of a model that is not quantized in
    bf16 under ZeRO stage 3 (``zero_stage``).  axolotl's restoration of the
    16-bit parameters after ``prepare_model_for_kbit_training`` goes by module
    names that only some layouts use; given ``cfg``, a QLoRA plan of another
    layout, or of a mixture of experts (whose stacked experts stay upcast), is
    refused.
    """
    setup = get_setup(key)
    kind = check.choice("task", task, ("full", "lora", "qlora"))
    settings: dict[str, Any] = {}
    if kind == "qlora":
        settings["qlora_preparation"] = setup.qlora_preparation
        if setup.key == "axolotl" and cfg is not None:
            model = as_model_config(cfg)
            if model.is_moe or model.layout not in AXOLOTL_RESTORED_LAYOUTS:
                raise refusal("setup_leaves_fp32", setup=key, model_type=model.model_type or model.layout)
    if kind != "full":
        dtype = setup.qlora_adapter_dtype if kind == "qlora" else setup.lora_adapter_dtype
        if setup.key == "trl-sft" and kind == "lora" and zero_stage == 3:
            dtype = "bf16"
        settings["adapter_dtype"] = dtype
    settings["optimizer"] = setup.optimizer
    settings["checkpointing"] = setup.checkpointing
    if kind != "full":
        optional = {"rank": setup.rank, "lora_dropout": setup.lora_dropout, "targets": setup.targets}
        settings.update({name: value for name, value in optional.items() if value is not None})
    return settings
