"""Measure the bytes a quantized causal LM holds, per weight format, for ``llmcalc.weightformats``.

This script is NOT run by the tests, and torch/transformers/bitsandbytes/gptqmodel
are NOT llmcalc dependencies.  It writes ``tests/data/quantized/recordings.json``,
which ``tests/test_weightformats.py`` compares ``llmcalc.weightformats`` against.

How to re-run (in a throwaway virtual environment, never the project's)::

    python3 -m venv /tmp/q-venv
    /tmp/q-venv/bin/pip install torch transformers accelerate bitsandbytes
    /tmp/q-venv/bin/python tools/measure_quantized.py --write

The ``int4`` (GPTQ) format also needs ``optimum`` and ``gptqmodel`` importable;
without them it is left out of the recordings.  gptqmodel's release pins a newer
torch than the one used here, so it was run from its unpacked source
distribution on ``PYTHONPATH`` (with its small pure-Python dependencies
installed ``--no-deps``); see the provenance in the recordings.

What is measured.  Each model is built from a configuration written out here
(small random weights, no hub download), saved with ``save_pretrained`` in
bfloat16, and loaded back on the CPU the way a reader loads a checkpoint:

* ``bf16``: ``from_pretrained(dtype=torch.bfloat16)``.
* ``int8``: ``BitsAndBytesConfig(load_in_8bit=True)``.
* ``nf4`` / ``nf4-dq``: ``BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
  bnb_4bit_use_double_quant=False / True)`` (blocksize 64, bitsandbytes' default).
* ``fp8``: a fine-grained FP8 checkpoint (``quant_method: fp8``, ``weight_block_size
  [128, 128]``, DeepSeek-V3 and Qwen3-FP8 style).  Without a GPU transformers
  dequantizes such a checkpoint to bf16, so its environment check alone is
  skipped; the module replacement (``FP8Linear``, ``FP8Experts``) is the library's.
  (Quantizing a bf16 checkpoint on load instead leaves every weight whose sides
  are not multiples of 128 in bf16: ``Fp8Quantize`` passes it through.)
* ``int4``: a GPTQ checkpoint (bits 4, group size 128, symmetric, no act-order) as
  transformers loads it through optimum and gptqmodel.

For ``fp8`` and ``int4`` the ``config.json`` of a bf16 checkpoint gets the format's
``quantization_config`` and transformers replaces the linear modules before
loading, as for a published quantized model; the tensors the checkpoint lacks
(scales, zeros) are allocated by the library's modules with their own shapes, so
their values are arbitrary but their shapes and dtypes are the library's.
GPT-2 in ``int4`` fails to load (transformers' GPT-2 ``_init_weights`` reads
``c_proj.weight``, which gptqmodel's layer lacks); a complete GPTQ checkpoint saved
from the loaded model fails the same way, so the refusal is recorded.

Every tensor the loaded model holds is counted once per storage: parameters,
buffers, and the tensors bitsandbytes keeps beside a weight (``SCB`` of an
``Int8Params``, the ``quant_state`` of a ``Params4bit``: ``absmax``, ``code``,
``offset``, and the nested state's ``absmax`` and ``code``).  Each tensor goes
into one part: ``quantized`` (the codes of a quantized weight), ``constants``
(what it takes to decode them), ``unquantized`` (parameters left in 16-bit,
biases included) or ``buffers`` (buffers that are not part of any weight format:
rotary frequency tables, and the GPTQ CPU kernel's helper tables ``wf_*``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import platform
import sys
import tempfile
from importlib import metadata
from typing import Any

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, BitsAndBytesConfig

TESTS = pathlib.Path(__file__).resolve().parent.parent / "tests"
OUTPUT = TESTS / "data" / "quantized" / "recordings.json"
STRUCTURE = OUTPUT.with_name("structure.json")

# Widths are multiples of 32 (GPTQ packs 8 codes in an int32 along the input) but not of 128, so
# GPTQ groups and FP8 blocks round up; llama's odd widths make bitsandbytes' 64-blocks round up too.
ARCHITECTURES: dict[str, tuple[str, dict[str, Any], str]] = {
    "llama": (
        "llama",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=928, num_hidden_layers=2,
             num_attention_heads=11, num_key_value_heads=1, head_dim=32, tie_word_embeddings=False),
        "Llama block (RMSNorm, SwiGLU, GQA 11:1), untied head",
    ),
    "qwen2": (
        "qwen2",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=928, num_hidden_layers=2,
             num_attention_heads=11, num_key_value_heads=1, head_dim=32, tie_word_embeddings=True),
        "Qwen2 block (Q/K/V biases), tied head",
    ),
    "gpt2": (
        "gpt2",
        dict(vocab_size=1000, n_positions=128, n_embd=384, n_layer=2, n_head=12),
        "GPT-2 (Conv1D layers with biases, fused c_attn, LayerNorm, learned positions, tied head)",
    ),
    "falcon": (
        "falcon",
        dict(vocab_size=1000, hidden_size=352, num_hidden_layers=2, num_attention_heads=11, multi_query=True,
             parallel_attn=True, new_decoder_architecture=False, bias=False, tie_word_embeddings=True),
        "Falcon-7B block (fused multi-query query_key_value, parallel attention and MLP, FalconLinear), tied head",
    ),
    "phi3": (
        "phi3",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=928, num_hidden_layers=2,
             num_attention_heads=11, num_key_value_heads=11, pad_token_id=0, tie_word_embeddings=False),
        "Phi-3 block (fused qkv_proj and gate_up_proj), untied head",
    ),
    "mixtral": (
        "mixtral",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=448, num_hidden_layers=2,
             num_attention_heads=11, num_key_value_heads=1, head_dim=32, num_local_experts=4,
             num_experts_per_tok=2, tie_word_embeddings=False),
        "Mixtral block (4 routed experts stacked as 3-D parameters, router), untied head",
    ),
    "qwen2_moe": (
        "qwen2_moe",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=928, moe_intermediate_size=448,
             shared_expert_intermediate_size=928, num_hidden_layers=2, num_attention_heads=11,
             num_key_value_heads=1, num_experts=4, num_experts_per_tok=2, tie_word_embeddings=False),
        "Qwen-MoE block (Q/K/V biases, 4 stacked routed experts, a shared expert and its 1-output gate)",
    ),
    "deepseek_v3": (
        "deepseek_v3",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=928, moe_intermediate_size=448,
             num_hidden_layers=2, first_k_dense_replace=1, num_attention_heads=11, num_key_value_heads=11,
             q_lora_rank=224, kv_lora_rank=160, qk_rope_head_dim=32, qk_nope_head_dim=32, v_head_dim=32,
             n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2, n_group=1, topk_group=1,
             tie_word_embeddings=False),
        "DeepSeek-V3 (latent attention, a dense first layer, then 4 stacked routed experts and a shared expert)",
    ),
}

FORMATS = ("bf16", "int8", "nf4", "nf4-dq", "fp8", "int4")
# Formats loaded as a checkpoint that says it is already quantized: the library builds its quantized
# modules with their own shapes before loading, as for a published FP8 or GPTQ model.
PRE_QUANTIZED = {
    "fp8": {"quant_method": "fp8", "weight_block_size": [128, 128], "activation_scheme": "dynamic"},
    "int4": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True,
             "checkpoint_format": "gptq"},
}


def has_gptq() -> bool:
    try:
        metadata.version("gptqmodel")
        metadata.version("optimum")
    except metadata.PackageNotFoundError:
        return False
    return True


def save_checkpoint(arch: str, directory: pathlib.Path, weight_format: str) -> None:
    model_type, kwargs, _ = ARCHITECTURES[arch]
    config = AutoConfig.for_model(model_type, **kwargs)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.save_pretrained(directory)
    if weight_format in PRE_QUANTIZED:
        path = directory / "config.json"
        saved = json.loads(path.read_text("utf-8"))
        saved["quantization_config"] = PRE_QUANTIZED[weight_format]
        path.write_text(json.dumps(saved), "utf-8")


def load(directory: pathlib.Path, weight_format: str) -> torch.nn.Module:
    options: dict[str, Any] = {"device_map": "cpu", "dtype": torch.bfloat16}
    if weight_format == "int8":
        options["quantization_config"] = BitsAndBytesConfig(load_in_8bit=True)
    elif weight_format in ("nf4", "nf4-dq"):
        options["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16,
            bnb_4bit_use_double_quant=weight_format == "nf4-dq")
    elif weight_format == "fp8":
        from transformers.quantizers.quantizer_finegrained_fp8 import FineGrainedFP8HfQuantizer

        # Without a GPU, transformers would dequantize the checkpoint to bf16 instead.
        FineGrainedFP8HfQuantizer.validate_environment = lambda self, *args, **kwargs: None  # type: ignore[method-assign]
    elif weight_format == "int4":
        options["dtype"] = torch.float16  # GPTQ kernels compute in fp16 (transformers suggests it)
    return AutoModelForCausalLM.from_pretrained(directory, **options)


def quant_state_tensors(parameter: torch.Tensor) -> dict[str, torch.Tensor]:
    """The tensors bitsandbytes keeps beside a quantized weight, by name."""
    found: dict[str, torch.Tensor] = {}
    scb = getattr(parameter, "SCB", None)
    if isinstance(scb, torch.Tensor):
        found["SCB"] = scb
    state = getattr(parameter, "quant_state", None)
    if state is not None:
        for name in ("absmax", "code", "offset"):
            value = getattr(state, name, None)
            if isinstance(value, torch.Tensor):
                found[f"quant_state.{name}"] = value
        nested = getattr(state, "state2", None)
        if nested is not None:
            for name in ("absmax", "code"):
                value = getattr(nested, name, None)
                if isinstance(value, torch.Tensor):
                    found[f"quant_state.state2.{name}"] = value
    return found


def part_of(name: str, tensor: torch.Tensor, weight_format: str, *, is_buffer: bool) -> str:
    leaf = name.rsplit(".", 1)[-1]
    if weight_format == "int4":
        if leaf == "qweight":
            return "quantized"
        if leaf in ("qzeros", "scales", "g_idx"):
            return "constants"
        if leaf.startswith("wf_"):
            return "buffers"
    if "quant_state." in name or leaf == "SCB" or leaf.endswith("scale_inv"):
        return "constants"
    if tensor.dtype in (torch.int8, torch.uint8, torch.float8_e4m3fn):
        return "quantized"
    if is_buffer and leaf != "bias":
        return "buffers"
    return "unquantized"


def measure(model: torch.nn.Module, weight_format: str) -> dict[str, Any]:
    seen: set[tuple[int, int]] = set()
    parts = dict.fromkeys(("quantized", "constants", "unquantized", "buffers"), 0)
    tensors: dict[str, dict[str, Any]] = {}

    def count(name: str, tensor: torch.Tensor, *, is_buffer: bool) -> None:
        storage = tensor.untyped_storage()
        key = (storage.data_ptr(), storage.nbytes())
        if key in seen:
            return
        seen.add(key)
        part = part_of(name, tensor, weight_format, is_buffer=is_buffer)
        parts[part] += storage.nbytes()
        kind = f"{part} {str(tensor.dtype).removeprefix('torch.')}"
        entry = tensors.setdefault(kind, {"count": 0, "bytes": 0})
        entry["count"] += 1
        entry["bytes"] += storage.nbytes()

    for name, parameter in model.named_parameters():
        count(name, parameter, is_buffer=False)
        for extra, tensor in quant_state_tensors(parameter).items():
            count(f"{name}.{extra}", tensor, is_buffer=False)
    for name, buffer in model.named_buffers():
        count(name, buffer, is_buffer=True)
    matrices = [
        name for name, parameter in model.named_parameters()
        if parameter.dim() >= 2 and parameter.dtype in (torch.bfloat16, torch.float16)
    ]
    converted = sorted({type(module).__name__ for module in model.modules()
                        if type(module).__module__.split(".")[0] in ("bitsandbytes", "gptqmodel")
                        or type(module).__name__.startswith("FP8")})
    return {"parts": parts, "by_part_and_dtype": tensors, "matrices_kept_16bit": matrices,
            "quantized_module_classes": converted}


def reduced_hf_config(path: pathlib.Path) -> dict[str, Any]:
    """A ``tests/data/hf_models`` config cut to 2 blocks (the second an MoE block where the model has them)."""
    settings = json.loads(path.read_text("utf-8"))
    for key in ("architectures", "transformers_version", "layer_types", "mlp_only_layers"):
        settings.pop(key, None)
    for key in ("num_hidden_layers", "n_layer"):
        if key in settings:
            settings[key] = 2
    if "first_k_dense_replace" in settings:
        settings["first_k_dense_replace"] = 1
    return settings


def structure(settings: dict[str, Any]) -> dict[str, dict[str, int]]:
    """What ``int8`` and ``fp8`` convert, from the libraries' own module replacement on the meta device.

    ``Linear8bitLt`` holds its weight unquantized until it is loaded, so only the
    number of weights it will hold as int8 codes is read; ``FP8Linear`` and
    ``FP8Experts`` allocate their e4m3 weights and fp32 scales when built.
    """
    import bitsandbytes
    from transformers import FineGrainedFP8Config
    from transformers.quantizers.auto import AutoHfQuantizer
    from transformers.quantizers.quantizer_finegrained_fp8 import FineGrainedFP8HfQuantizer

    FineGrainedFP8HfQuantizer.validate_environment = lambda self, *args, **kwargs: None  # type: ignore[method-assign]
    config = AutoConfig.for_model(**settings)
    result = {}
    for weight_format, quantization in (("int8", BitsAndBytesConfig(load_in_8bit=True)),
                                        ("fp8", FineGrainedFP8Config(weight_block_size=[128, 128]))):
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
        quantizer = AutoHfQuantizer.from_config(quantization, pre_quantized=weight_format == "fp8")
        quantizer.preprocess_model(model, dtype=torch.bfloat16, device_map={"": "cpu"}, checkpoint_files=None)
        if weight_format == "int8":
            int8 = [m.weight.numel() for m in model.modules() if isinstance(m, bitsandbytes.nn.Linear8bitLt)]
            result[weight_format] = {"int8_codes": sum(int8)}
            continue
        parameters = list(model.named_parameters())
        result[weight_format] = {
            "fp8_codes": sum(p.numel() for _, p in parameters if p.dtype == torch.float8_e4m3fn),
            "scale_inv_bytes": sum(p.numel() * p.element_size() for name, p in parameters
                                   if name.endswith("scale_inv")),
        }
    return result


def write_structure(command: str) -> None:
    records = {}
    for path in sorted((TESTS / "data" / "hf_models").glob("*.json")):
        if path.name.startswith("_") or path.name.endswith(".full.json"):
            continue
        settings = reduced_hf_config(path)
        records[path.stem] = {"config": settings, **structure(settings)}
        print(f"{path.stem:24} {records[path.stem]}", flush=True)
    document = {
        "provenance": {"script": "tools/measure_quantized.py", "command": command,
                       "date": datetime.date.today().isoformat(), "torch": torch.__version__,
                       "transformers": transformers.__version__, "bitsandbytes": metadata.version("bitsandbytes"),
                       "method": "every tests/data/hf_models config cut to 2 blocks, built on the meta device, "
                                 "modules replaced by the quantizer's preprocess_model (as from_pretrained does)"},
        "models": records,
    }
    STRUCTURE.write_text(json.dumps(document, indent=1) + "\n", "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUTPUT.relative_to(OUTPUT.parents[3])}")
    parser.add_argument("--arch", choices=sorted(ARCHITECTURES), action="append", help="only these architectures")
    parser.add_argument("--format", choices=FORMATS, action="append", help="only these weight formats")
    parser.add_argument("--structure", action="store_true",
                        help=f"instead, write {STRUCTURE.name}: what int8 and fp8 convert in each supported model_type")
    args = parser.parse_args()
    torch.set_num_threads(2)
    transformers.logging.set_verbosity_error()
    if args.structure:
        write_structure(" ".join(["python tools/measure_quantized.py", *sys.argv[1:]]))
        return
    formats = [f for f in args.format or FORMATS if f != "int4" or has_gptq()]
    records: list[dict[str, Any]] = []
    refused: list[dict[str, str]] = []
    for arch in args.arch or ARCHITECTURES:
        for weight_format in formats:
            with tempfile.TemporaryDirectory() as directory:
                save_checkpoint(arch, pathlib.Path(directory), weight_format)
                try:
                    model = load(pathlib.Path(directory), weight_format)
                except Exception as error:  # a library refusing a model is a finding to record, not a crash
                    refused.append({"arch": arch, "format": weight_format, "error": f"{type(error).__name__}: {error}"})
                    print(f"{arch:8} {weight_format:7} refused: {error}", flush=True)
                    continue
                record = {"arch": arch, "format": weight_format, **measure(model, weight_format)}
                del model
            records.append(record)
            print(f"{arch:8} {weight_format:7} " + " ".join(f"{k}={v:,d}" for k, v in record["parts"].items()),
                  flush=True)
    versions = {"python": platform.python_version(), "torch": torch.__version__,
                "transformers": transformers.__version__, "accelerate": metadata.version("accelerate"),
                "bitsandbytes": metadata.version("bitsandbytes")}
    if has_gptq():
        versions |= {"optimum": metadata.version("optimum"), "gptqmodel": metadata.version("gptqmodel")}
    document = {
        "provenance": {
            "script": "tools/measure_quantized.py",
            "command": " ".join(["python tools/measure_quantized.py", *sys.argv[1:]]),
            "date": datetime.date.today().isoformat(),
            **versions,
            "device": "cpu",
            "counted": "every tensor the loaded model holds (parameters, buffers, bitsandbytes' SCB and "
                       "quant_state tensors), once per storage, in bytes",
            "parts": {"quantized": "codes of quantized weights",
                      "constants": "what decodes them: scales, absmax, code tables, offsets, zeros, g_idx",
                      "unquantized": "parameters left in 16-bit, biases of quantized layers included",
                      "buffers": "not part of a weight format: rotary tables, GPTQ CPU kernel helper tables"},
        },
        "architectures": {arch: {"model_type": model_type, "config": kwargs, "description": what}
                          for arch, (model_type, kwargs, what) in ARCHITECTURES.items()},
        "records": records,
        "refused": refused,
    }
    if args.write:
        OUTPUT.parent.mkdir(parents=True, exist_ok=True)
        OUTPUT.write_text(json.dumps(document, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()
