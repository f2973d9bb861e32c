"""tools/zhlint.py: the zh_TW style and terminology checks, each on seeded good and bad examples."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import zhlint
from zhlint import (
    Term,
    Terminology,
    context_problems,
    expansion_problems,
    header_problems,
    link_problems,
    lint_catalog,
    lint_terminology,
    lint_text,
    read_terminology,
    simplified_only_characters,
    visible_text,
)


@pytest.mark.parametrize(
    "text",
    [
        "使用 LoRA 微調時，只訓練 131,072 個參數。",
        "{term}`詞元 <Token>` 是模型讀寫的單位。",
        "在台灣，工程師用「記憶體」與「演算法」這兩個詞。",
        "Token（詞元）",
        "**為什麼重要**：它決定了 `kv_cache_bytes` 的大小。",
        "這一步叫做*訓練*，之後是。*推論*的階段。",
        "**為什麼重要**：它決定了記憶體用量。",
        "縮放因子是 $1/\\sqrt{d}$，也就是 8 的倒數。",
        "請參考 [範例](https://example.org/x.html) 與表格。",
        "干擾、布局、台灣都是正體字。",
    ],
)
def test_taiwan_style_text_passes(text: str) -> None:
    assert lint_text(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这个数据", ["Simplified-only characters '个数这'"]),
        ("模型的數據", ["mainland term '數據': Taiwan writes '資料'"]),
        ("內存不足", ["mainland term '內存': Taiwan writes '記憶體'"]),
        ("默認設定", ["mainland term '默認': Taiwan writes '預設'"]),
        ("這個算法", ["mainland term '算法': Taiwan writes '演算法'"]),
        ("使用緩存", ["mainland term '緩存': Taiwan writes '快取'"]),
        ("這個程序很快", ["mainland term '程序': Taiwan writes '程式'"]),
        ("輸出質量", ["mainland term '質量': Taiwan writes '品質'"]),
        ("詞元,斷詞器", [
            "half-width punctuation next to Chinese text: '元,'",
            "half-width punctuation next to Chinese text: ',斷'",
        ]),
        ("結束了.", ["half-width punctuation next to Chinese text: '了.'"]),
        ("詞元(Token)", ["half-width punctuation next to Chinese text: '元('"]),
        ("（見下方)結束", ["half-width punctuation next to Chinese text: '方)'", "half-width punctuation next to Chinese text: ')結'"]),
        ("**為什麼重要：**它很關鍵", ["emphasis markers that will show as asterisks: ['**為什麼重要：**它很關鍵']"]),
        ("這是**「引用」**文字", ["emphasis markers that will show as asterisks: ['這是**「引用」**文字']"]),
        ("使用LoRA微調", [
            "no space between Chinese and Latin text: '用L'",
            "no space between Chinese and Latin text: 'A微'",
        ]),
        ("共16層", [
            "no space between Chinese and Latin text: '共1'",
            "no space between Chinese and Latin text: '6層'",
        ]),
        ("{term}`詞元 <Token>`是單位", []),
        # Seeded from the 2026-12-07 review: the label 秩 r rendered 「秩 r必須是 1 到 256 之間的整數。」
        ("error: {label}必須是 {min} 到 {max} 之間的整數。", [
            "placeholder glued to Chinese text: '{label}必': its value may end in Latin; put a full-width colon or 「」 after it",
        ]),
        ("error: {label}：必須是 {min} 到 {max} 之間的整數。", []),
        ("不符合此模型的任何模組{fused}；可用的模組：{modules}。", []),
        ("呼叫`lora_params`函式", [
            "no space between Chinese and Latin text: '叫x'",
            "no space between Chinese and Latin text: 'x函'",
        ]),
        # Seeded from the review of the messages added after c4c5e2c, quoted from the catalogs as they stood.
        ("每層 n_heads 個值，不佔 KV 快取", ["second rendering '佔': the glossary writes '占 (占用, 不占 KV 快取)'"]),
        (
            "每張 GPU 的專家寬度向上取整到 64",
            ["mainland term '向上取整': Taiwan writes '無條件進位／無條件捨去 (round up／down), as reference-memory writes it'"],
        ),
        ("同時服務的序列（槽位）數", ["mainland term '槽位': Taiwan writes \"slot (llama-server's slots, as its -np help says)\""]),
        (
            "llama.cpp 自 2024 年六月起",
            ["second rendering '年六月': the glossary writes '2024 年 6 月 (months in Arabic numerals, as the years are)'"],
        ),
        (
            "**gpt-oss。** OpenAI 的 gpt-oss 模型",
            ["space after full-width punctuation: '。 ': write 「**gpt-oss**：OpenAI」"],
        ),
        # CommonMark closes ``**`` after punctuation only before a space, so the colon goes outside the bold.
        (
            "**為什麼重要：** 它決定了 `kv_cache_bytes` 的大小。",
            ["space after full-width punctuation: '： ': write 「**gpt-oss**：OpenAI」"],
        ),
        ("**gpt-oss**：OpenAI 的 gpt-oss 模型不占 KV 快取", []),
        ("專家寬度無條件進位到 64；llama.cpp 自 2024 年 6 月起，四個 slot 共用", []),
        ("第 1 段。第 2 段：見上", []),
        # Seeded from the review of the messages added after the zhrev merge (faba0dc), as the catalogs stood.
        (
            "**資料來源：**{cite:p}`chitty2024llminferencebench`; {cite:p}`williams2009roofline`。",
            ["half-width ';' between two roles in Chinese text: write 「；」 or 「、」"],
        ),
        ("**來源**：{cite:p}`chitty2024llminferencebench`；{cite:p}`williams2009roofline`。", []),
        ("LLM-Inference-Bench {cite:p}`a`, {cite:p}`b` 中", ["half-width ',' between two roles in Chinese text: write 「；」 or 「、」"]),
        ("LLM-Inference-Bench {cite:p}`a`、{cite:p}`b` 中", []),
        ("**Sources:** {cite:p}`a`; {cite:p}`b`.", []),  # the English source itself
        (
            "prefill 受運算能力限制，估計很可能偏長",
            ["second rendering '受運算能力限制': the glossary writes '受運算限制 (Compute-bound, as terminology.tsv writes it)'"],
        ),
        ("prefill 受運算限制，估計很可能偏長；運算能力低於 8.0", []),
    ],
)
def test_each_problem_is_named(text: str, expected: list[str]) -> None:
    assert lint_text(text) == expected


def test_visible_text_keeps_role_text_and_drops_targets() -> None:
    assert visible_text("見 {term}`低秩適應 <LoRA>` 與 {term}`Token`。") == "見 低秩適應 與 Token。"


def test_simplified_table_excludes_characters_valid_in_traditional() -> None:
    table = simplified_only_characters()
    assert {"这", "为", "数", "门", "个"} <= table
    assert not {"台", "干", "布", "里", "后", "系", "峰", "群", "啟", "偽"} & table


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("把它對應到最大的整數代碼", ["mainland term '代碼': Taiwan writes '程式碼, or 整數值／編碼 for quantized values'"]),
        ("訓練花掉的算力", ["mainland term '算力': Taiwan writes '運算能力 or 運算量'"]),
        ("逐步加載", ["mainland term '加載': Taiwan writes '載入 (software) or 增加負載 (electrical load)'"]),
        ("一張查找表", ["mainland term '查找': Taiwan writes '查詢, 查表 or 尋找'"]),
        ("以似然度評分", ["mainland term '似然': Taiwan writes '概似 (概似度, 最大概似估計)'"]),
        ("再由大模型檢查", ["mainland term '大模型': Taiwan writes '大型模型 or 較大的模型'"]),
        ("不含 LM 輸出頭", ["second rendering 'LM 輸出頭': the glossary writes '語言模型輸出頭'"]),
        ("FFN 下投影", ["second rendering '下投影': the glossary writes '升維投影／降維投影 (up/down projection)'"]),
        ("前饋網路的 up 投影", ["second rendering 'up 投影': the glossary writes '升維投影／降維投影 (up/down projection)'"]),
        ("JPEG 這類破壞性壓縮", ["second rendering '破壞性壓縮': the glossary writes '失真壓縮'"]),
        ("術語之間的依賴關係", ["second rendering '依賴關係': the glossary writes '相依關係'"]),
        ("每個提示詞詞元", ["second rendering '提示詞詞元': the glossary writes '提示詞的詞元 or 提示詞中的詞元'"]),
        ("開關網站導覽側欄", ["second rendering '開關': the glossary writes '切換'"]),
        # Seeded from the 2026-12-01 review (issue 28): one rendering per term.
        ("會讓預處理成為主要成本", ["second rendering '預處理': the glossary writes 'prefill (header gloss 預填); 前處理 for preprocessing'"]),
        ("提示詞預處理受運算限制", ["second rendering '提示詞預處理': the glossary writes 'prefill (header gloss 預填); 前處理 for preprocessing'"]),
        ("張量運算核心處理 16 位元輸入", ["second rendering '張量運算核心': the glossary writes 'Tensor 核心 (as NVIDIA Taiwan writes it)'"]),
        ("每個區塊配一個縮放值", ["second rendering '縮放值': the glossary writes '縮放因子 (the quantization scale)'"]),
        ("和對話模型一起執行", ["second rendering '對話模型': the glossary writes '聊天模型 (Chat model)'"]),
        ("改成混合專家版本", ["second rendering '混合專家': the glossary writes '混合專家模型 (MoE); 專家 alone is one expert'"]),
        ("分詞器不相符", ["second rendering '分詞': the glossary writes 'tokenizer (header gloss 詞元切分器), 詞元切分 for tokenization'"]),
        ("下一個詞條", ["second rendering '詞條': the glossary writes '條目 (a glossary entry)'"]),
        ("32,768 個詞元的脈絡所需的快取", ["second rendering '詞元的脈絡': the glossary writes '上下文 (as in 上下文視窗, context window)'"]),
        ("八個單字的玩具語料庫", ["second rendering '玩具': the glossary writes '示範, 小型示範 (a toy example)'"]),
        ("本頁只假設你讀過第 01 頁", ["second rendering '第 01': the glossary writes '第 1 頁 (page numbers are not zero-padded)'"]),
        ("本頁假設你讀過第 1 到 05 頁", ["second rendering '05': the glossary writes '第 1 頁 (page numbers are not zero-padded)'"]),
        # Seeded from the 2026-12-07 review.
        ("與其讓每個客戶端各存一份", ["mainland term '客戶端': Taiwan writes '用戶端'"]),
        ("條帶化的磁碟陣列", ["mainland term '條帶化': Taiwan writes '等量 (striping, as in RAID 0)'"]),
        ("留待日後指定用途的占位符", ["mainland term '占位符': Taiwan writes '預留位置'"]),
        ("在海量文字上訓練", ["mainland term '海量': Taiwan writes '大量 or 龐大的'"]),
        ("使用者會看到明顯的卡頓", ["mainland term '卡頓': Taiwan writes '停頓'"]),
        ("與其啟用參數量同大小的密集模型", ["second rendering '密集': the glossary writes '稠密 (a dense model, layer, computation or retrieval)'"]),
        ("BF16 密集峰值", ["second rendering '密集': the glossary writes '稠密 (a dense model, layer, computation or retrieval)'"]),
        ("採用的門控形式", ["second rendering '門控': the glossary writes '閘控 (gated; the gate itself is 閘門)'"]),
        ("對注意力分數做上限壓縮", ["second rendering '上限壓縮': the glossary writes '軟上限（soft-capping）'"]),
        ("後面介紹的偏離懲罰", ["second rendering '偏離懲罰': the glossary writes '偏移懲罰 (drift penalty)'"]),
        ("新的回歸測試必須轉綠", ["second rendering '回歸': the glossary writes '迴歸 (迴歸測試, a regression test)'"]),
        # Seeded from the independent zh_TW review (M2, M3).
        ("端到端 LLM 流程", ["mainland term '端到端': Taiwan writes '端對端 (end-to-end)'"]),
        ("專家的 gate 投影與升維投影是同一個矩陣", [
            "second rendering 'gate 投影': the glossary writes '閘控投影與升維投影 (the FFN gate and up projections)'"]),
        ("更新取決於當前輸入", ["mainland term '當前': Taiwan writes '目前, or 這一步的 for the current step'"]),
        ("``repeat_kv`` 是展開的視圖", [
            "mainland term '視圖': Taiwan writes 'view (a tensor view, as PyTorch names it) or 檢視'"]),
        ("前 k 個路由權重", ["second rendering '前 k 個': the glossary writes \"top-k (the router's top-k, as POLICY.md writes it)\""]),
        ("（Kaplan et al. 2020 第 2.1 節）", ["second rendering 'et al.': the glossary writes '等人 (Kaplan 等人，2020)'"]),
        ("從開頭（0 %）到結尾", ["second rendering '0 %': the glossary writes '50% (no space before the percent sign)'"]),
        ("同時持有 gate 與 up 兩個投影的輸出", [
            "second rendering 'gate 與 up': the glossary writes '閘控投影與升維投影 (the FFN gate and up projections)'"]),
        # Seeded from the second independent zh_TW review (zhr1), quoted from page 05's catalog.
        ("「閘」（gate）投影與「升維」（up）投影", [
            "second rendering '閘': the glossary writes \"閘門 (the gate) or 閘控 (gated; the FFN's gate projection is 閘控投影)\""]),

        # Seeded from the zhr4 review (page 19's llama.cpp section).
        ("規劃器也為 CUDA context 預留 0.5 GiB", [
            "second rendering 'CUDA context': the glossary writes 'CUDA 執行環境 (the CUDA context)'"]),
        ("初始化 CUDA 上下文", ["second rendering 'CUDA 上下文': the glossary writes 'CUDA 執行環境 (the CUDA context)'"]),
    ],
)
def test_mainland_words_and_second_renderings_are_named(text: str, expected: list[str]) -> None:
    assert lint_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "錯誤代碼 404", "語言代碼 zh_TW", "計算力", "增加載入時間", "把模型放大模型就更準", "強大模型", "可以開關的思考模式", "降維投影",
        "資料前處理", "每個被評分詞元的損失", "部分詞元", "混合專家模型（MoE）", "在語言模型的脈絡裡", "第 1 到 5 頁", "第 10 頁",
        "prefill（預填）", "Tensor 核心", "縮放因子", "MCP 用戶端", "等量（striping）磁碟陣列", "預留位置", "大量文字", "停頓",
        "靠近零處密集，尾端稀疏", "稠密模型", "運算密集的工作", "閘控線性單元", "回歸本業", "迴歸測試",
        "兩份清單都排得相當前面的文件", "gate、up、down 三個矩陣", "閘控投影與升維投影", "前面幾個", "50%",
        "LSTM 的三個閘門", "Swish 閘控線性單元",

        "CUDA 執行環境（context）",
    ],
)
def test_contexts_where_the_listed_words_are_fine(text: str) -> None:
    assert lint_text(text) == []


TERMS = Terminology(
    lora=Term("LoRA", "低秩適應", "english", 2),
    softmax=Term("Softmax", "正規化指數函數", "english", 3),
    pytorch=Term("PyTorch", "深度學習框架", "name", 4),
    token=Term("Token", "詞元", "chinese", 5),
    mha=Term("MHA", "多頭注意力", "english", 6),
    **{"multi-head attention": Term("Multi-head attention", "多頭注意力", "chinese", 7)},
)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("{term}`LoRA` 的秩", []),
        ("{term}`softmax <Softmax>` 的輸出", []),
        ("{term}`詞元 <Token>`的數量", []),
        ("以 {term}`PyTorch` 撰寫", []),
        ("{term}`低秩適應 <LoRA>`的秩", ["link '{term}`低秩適應 <LoRA>`': LoRA stays in English in running text: {term}`LoRA`"]),
        (
            "{term}`LoRA（低秩適應） <LoRA>`的秩",
            ["link '{term}`LoRA（低秩適應） <LoRA>`': LoRA stays in English in running text: {term}`LoRA`"],
        ),
        (
            "{term}`正規化指數函數 <softmax>`",
            ["link '{term}`正規化指數函數 <softmax>`': Softmax stays in English in running text: {term}`softmax`"],
        ),
        ("{term}`Token` 的數量", ["link '{term}`Token`': Token is written in Chinese: {term}`詞元 <Token>`"]),
        ("{term}`張量 <Tensor>`", ["link '{term}`張量 <Tensor>`': target 'Tensor' is not a term of terminology.tsv"]),
    ],
)
def test_link_text_follows_the_policy(message: str, expected: list[str]) -> None:
    assert link_problems(message, TERMS) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("做 softmax 之後", []),
        ("LoRA（低秩適應）只訓練兩個小矩陣", []),
        ("低秩適應（LoRA）只訓練兩個小矩陣", []),
        ("{term}`LoRA`（低秩適應）只訓練兩個小矩陣", []),
        ("每一層都用多頭注意力", []),
        (
            "再做正規化指數函數",
            ["'正規化指數函數' spells out Softmax: write 'softmax' in running text (the header 'Softmax（正規化指數函數）' glosses it)"],
        ),
        # A link's text is link_problems' concern; reporting it here too would say it twice.
        ("{term}`低秩適應 <LoRA>`兩個矩陣", []),
    ],
)
def test_running_text_keeps_english_policy_terms_in_english(message: str, expected: list[str]) -> None:
    assert expansion_problems(message, TERMS) == expected


@pytest.mark.parametrize(
    ("source", "message", "expected"),
    [
        ("In the reference preset", "在參考組態（preset）中", []),
        ("the default settings", "預設設定", []),
        ("In the reference preset", "在參考預設設定中", ["'預設設定' for 'preset': a preset is not a default: write 內建組態（preset） or 參考組態"]),
        ("stores them as a preset", "存成預設組態", ["'預設組態' for 'preset': a preset is not a default: write 內建組態（preset） or 參考組態"]),
        ("a preset name with --recipe", "搭配 --recipe 的預設模型名稱", ["'預設模型' for 'preset': a preset is not a default: write 內建組態（preset） or 參考組態"]),
        ("$m$ rows and $n$ columns", "$m$ 列、$n$ 欄", []),
        ("the layouts whose GPTQ sizes are refused", "GPTQ 大小會被拒絕的布局",
         ["'布局' for 'layouts': a model's layout is 版型, as page 19 writes it"]),
        ("rows and columns", "排成列與行", ["'與行' for 'columns': a matrix column is 欄 throughout, never 行"]),
        ("runs the code line by line", "一行一行地執行", []),
        ("on top of a base model", "建立在基底模型上", []),
        (
            "one base model serves many adapters",
            "一個基礎模型承載許多 adapter",
            ["'基礎模型' for 'base model': base is 基底 (基底模型, 基底權重, 基底版本); 基礎模型 is a foundation model"],
        ),
        ("*Foundation model* stresses that many tuned models build on the base model", "*Foundation model*（基礎模型）強調", []),
        (
            "**Supervised fine-tuning**: {term}`SFT` on pairs",
            "**指令微調**：用配對做 {term}`SFT`",
            ["'指令微調' for 'Supervised fine-tuning': SFT is 監督式微調; 指令微調 is instruction tuning"],
        ),
        ("models tuned on instructions", "經過指令微調的模型", []),
        ("with one scale per block", "每個區塊配一個縮放因子", []),
        (
            "one FP32 scale per output row",
            "每個輸出列一個 FP32 縮放係數",
            ["'縮放係數' for 'scale': a scale is 縮放因子; 縮放係數 is only LoRA's alpha/r (lora_alpha)"],
        ),
        ("the LoRA update is scaled by alpha / r", "更新量乘上 LoRA 縮放係數", []),
        (
            "the experts with the highest scores are chosen (the top $k$)",
            "選出分數最高的幾個專家（前 $k$ 名）",
            ["'前 x 名' for 'top $k$': write top-$k$ (as Top-k 取樣), not 前 k 名"],
        ),
        ("the best $k$ candidates get an interview", "只有前 $k$ 名能進入面試", []),
        (
            "it cuts the frozen base weights to about a quarter",
            "它把凍結的基礎權重縮小到約四分之一",
            ["'基礎權重' for 'base weights': base is 基底 (基底模型, 基底權重, 基底版本); 基礎模型 is a foundation model"],
        ),
        ("The base version is the usual starting point", "基底版本通常才是起點", []),
        (
            "depending on the set-up chosen below",
            "取決於下面選擇的配置",
            ["'配置' for 'set-up': a set-up is a 設定; 配置 is kept for allocation (配置記憶體)"],
        ),
        ("depending on the set-up chosen below", "取決於下面選擇的設定", []),
        (
            "for that set-up they are the bytes the libraries allocate",
            "在該設定下，它們就是函式庫實際配置的位元組數",
            [],
        ),
        # The 2026-12-07 review's three meaning slips, quoted from the catalogs they were found in.
        (
            "which torch's CPU kernel keeps",
            "torch 的 CPU 核心會保留它",
            ["'核心' for 'kernel': a kernel is not a core (一般核心 are CUDA cores): keep kernel in English, as POLICY.md says"],
        ),
        ("which torch's CPU kernel keeps", "torch 的 CPU kernel 會保留它", []),
        ("a {term}`kernel` is a function", "kernel（核心函式）是在 GPU 上執行的函式", []),
        ("the GPU falls back to its slower ordinary cores", "GPU 只能退回較慢的一般核心", []),
        ("Tensor Cores run the kernel", "Tensor 核心執行這個 kernel", []),
        (
            "the fp32 optimizer moments and master weights",
            "fp32 的最佳化器動量與主權重",
            ["'動量' for 'moments': Adam's moments are 動差 (一階動差 is the momentum, 二階動差 is not)"],
        ),
        ("the average gradient (the {term}`momentum`, the first moment)", "梯度的平均（也就是動量，稱為一階動差）", []),
        (
            "4 + 4 (fp32 moments). Optimizers: ``adamw``, ``sgd-momentum``",
            "4 + 4（fp32 動量）。最佳化器：``adamw``、``sgd-momentum``",
            ["'動量' for 'moments': Adam's moments are 動差 (一階動差 is the momentum, 二階動差 is not)"],
        ),
        ("the largest of three moments", "三個時刻中最大的一個", []),
        (
            "Every figure in the glossary comes from here.",
            "詞彙表中的每個數字都來自這裡。",
            ["'詞彙表' for 'glossary': the site is a 術語表; 詞彙表 is a model's vocabulary"],
        ),
        ("Every figure in the glossary comes from here.", "本術語表中的每個數字都來自這裡。", []),
        ("The reference model of this glossary has a vocabulary of 32,768 tokens", "本術語表的參考模型，詞彙表有 32,768 個詞元", []),
        # Seeded from the second independent zh_TW review (zhr1), quoted from page 06's catalog.
        (
            "Another family changes the base of the rotation frequencies instead",
            "另一類方法則改變旋轉頻率的基數",
            ["'基數' for 'base': RoPE's base (rope_theta) is 底數, as page 05 writes it; 基數 is a radix (基數樹)"],
        ),
        ("with the common base 10,000", "使用常見的底數 10,000", []),
        ("a radix tree keyed by token sequences, whose base", "一棵以詞元序列為鍵的基數樹", []),
        # Seeded from the zh_TW review of the messages added after c4c5e2c (gpt-oss, vLLM MXFP4), quoted from
        # reference-planner.po and 19-will-it-fit.po as they stood.
        (
            "The preset weight formats :func:`weight_format_bytes` sizes for ``cfg``",
            "{func}`weight_format_bytes` 能為 ``cfg`` 計算大小的預設權重格式",
            ["'預設權重格式' for 'preset': a preset is not a default: write 內建組態（preset） or 參考組態"],
        ),
        ("The preset weight formats :func:`weight_format_bytes` sizes", "能計算大小的內建權重格式", []),
        ("the default weight format", "預設權重格式", []),
        (
            "Ampere and Ada cards get Marlin, AMD's get AITER, and below 8.0 (V100, T4) vLLM refuses MXFP4.",
            "Ampere 與 Ada 的卡用 Marlin，AMD 的卡用 AITER，8.0 以下（V100、T4）vLLM 則拒絕 MXFP4。",
            ["'8.0 以下' for 'below 8.0': 以下 includes its number: below N is 低於 N (or 未滿 N)"],
        ),
        ("and below 8.0 (V100, T4) vLLM refuses MXFP4.", "運算能力低於 8.0 時（V100、T4）vLLM 則拒絕 MXFP4。", []),
        ("compute capability 7.5 or more", "運算能力 7.5 以上", []),
        (
            "vLLM picks another backend, whose layout is not modelled",
            "它會選別的後端，那些版面沒有建模",
            ["'版面' for 'layout': a tensor's layout in memory is its 排列方式 (版面 is a page layout; a model's layout is 版型)"],
        ),
        (
            "its experts as the Triton MXFP4 backend lays them out on Hopper",
            "專家依 Triton MXFP4 後端在 Hopper 上的版面計算",
            ["'版面' for 'lays them out': a tensor's layout in memory is its 排列方式 (版面 is a page layout; a model's layout is 版型)"],
        ),
        ("whose layout is not modelled", "那些排列方式沒有建模", []),
        (
            "The presets `gpt-oss-20b` and `gpt-oss-120b` count them",
            "內建模型 `gpt-oss-20b` 與 `gpt-oss-120b` 依 transformers 5.24 建出的模型來計算",
            ["'內建模型' for 'presets': a preset is a 內建組態（preset）, as POLICY.md writes it"],
        ),
        ("The built-in models by name; gpt-oss's presets are the BF16 models", "以名稱對應的內建模型", []),
        (
            "a graph removes most of that overhead",
            "執行圖消除了大部分這項負擔",
            ["'執行圖' for 'graph': CUDA graph stays in English in running text (header gloss CUDA 執行圖)"],
        ),
        ("CUDA graphs", "CUDA graph（CUDA 執行圖）", []),
        (
            "a batch of {batch} would be preempted and recomputed, which is not modelled",
            "{batch} 條的批次會有序列被踢出再重算，這沒有建模",
            ["'踢出' for 'preempt': vLLM preempts a sequence: 搶占 (preempt), not the colloquial 踢出"],
        ),
        ("a batch of {batch} would be preempted", "{batch} 條的批次會有序列被搶占、之後再重算", []),
    ],
)
def test_renderings_that_depend_on_the_english(source: str, message: str, expected: list[str]) -> None:
    assert context_problems(source, message) == expected


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        (Term("SWA", "滑動視窗注意力", "chinese", 2), []),
        (Term("KV cache", "KV 快取", "chinese", 3), []),
        (Term("LoRA adapter", "LoRA 配接器", "chinese", 4), []),
        (Term("F1", "F1", "chinese", 5), ["header 'F1（F1）' glosses 'F1' without Chinese: give its meaning, e.g. SWA（滑動視窗注意力）"]),
        (
            Term("head_dim", "head_dim 頭維度", "name", 6),
            ["header 'head_dim（head_dim 頭維度）' repeats 'head_dim' in its gloss: keep only what it means or is, e.g. PyTorch（深度學習框架）"],
        ),
        (
            Term("Transformer", "transformer 架構", "name", 7),
            ["header 'Transformer（transformer 架構）' repeats 'Transformer' in its gloss: keep only what it means or is, e.g. PyTorch（深度學習框架）"],
        ),
    ],
)
def test_a_header_says_something_its_english_does_not(term: Term, expected: list[str]) -> None:
    assert header_problems(term) == expected


REAL_TERMS = read_terminology()


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("會讓 {term}`prefill <Prefill>` 成為主要成本", []),
        ("跑 1 到 3 個 {term}`epoch <Epoch>`", []),
        ("融合的注意力 {term}`kernel <kernel>`", []),
        ("並以 {term}`Evol-Instruct` 提高難度", []),
        ("遠多於 {term}`Chinchilla` 運算最適比例", []),
        ("{term}`Tensor 核心 <Tensor Core>`處理 16 位元輸入", []),
        ("{term}`基底模型 <Base model>`", []),
        ("{term}`提示詞預處理 <Prefill>`", ["link '{term}`提示詞預處理 <Prefill>`': Prefill stays in English in running text: {term}`prefill <Prefill>`"]),
        ("{term}`訓練輪次 <Epoch>`", ["link '{term}`訓練輪次 <Epoch>`': Epoch stays in English in running text: {term}`epoch <Epoch>`"]),
        ("{term}`核心函式 <kernel>`", ["link '{term}`核心函式 <kernel>`': Kernel stays in English in running text: {term}`kernel`"]),
        ("{term}`配接器 <Adapter>`", ["link '{term}`配接器 <Adapter>`': Adapter stays in English in running text: {term}`adapter <Adapter>`"]),
        ("{term}`分詞器 <Tokenizer>`", ["link '{term}`分詞器 <Tokenizer>`': Tokenizer stays in English in running text: {term}`tokenizer <Tokenizer>`"]),
        (
            "{term}`自我指令生成 <Self-Instruct>`",
            ["link '{term}`自我指令生成 <Self-Instruct>`': Self-Instruct stays in English in running text: {term}`Self-Instruct`"],
        ),
        (
            "{term}`運算最適訓練 <Chinchilla>`",
            ["link '{term}`運算最適訓練 <Chinchilla>`': Chinchilla stays in English in running text: {term}`Chinchilla`"],
        ),
        (
            "{term}`張量運算核心 <Tensor Core>`",
            ["link '{term}`張量運算核心 <Tensor Core>`': Tensor Core is written in Chinese: {term}`Tensor 核心 <Tensor Core>`"],
        ),
        (
            "{term}`基礎模型 <Base model>`",
            ["link '{term}`基礎模型 <Base model>`': Base model is written in Chinese: {term}`基底模型 <Base model>`"],
        ),
    ],
)
def test_the_review_decisions_are_the_policy(message: str, expected: list[str]) -> None:
    """The 2026-12-01 review's decisions, read from the real terminology.tsv (POLICY.md)."""
    assert link_problems(message, REAL_TERMS) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("kernel（核心函式）是在 GPU 上執行的函式", []),
        ("儲存時只寫出小小的 adapter", []),
        (
            "儲存時只寫出小小的配接器",
            ["'配接器' spells out Adapter: write 'adapter' in running text (the header 'Adapter（配接器）' glosses it)"],
        ),
        (
            "跑 3 個訓練輪次",
            ["'訓練輪次' spells out Epoch: write 'epoch' in running text (the header 'Epoch（訓練輪次）' glosses it)"],
        ),
        (
            "手寫的 GPU 核心函式",
            ["'GPU 核心函式' spells out GPU kernel: write 'GPU kernel' in running text (the header 'GPU kernel（GPU 核心函式）' glosses it)",
             "'核心函式' spells out Kernel: write 'kernel' in running text (the header 'Kernel（核心函式）' glosses it)"],
        ),
        (
            "預填階段受運算限制",
            ["'預填' spells out Prefill: write 'prefill' in running text (the header 'Prefill（預填）' glosses it)",
             "'預填階段' spells out Prefill phase: write 'Prefill phase' in running text (the header 'Prefill phase（預填階段）' glosses it)"],
        ),
    ],
)
def test_english_kept_terms_are_not_spelled_out(message: str, expected: list[str]) -> None:
    assert sorted(expansion_problems(message, REAL_TERMS)) == sorted(expected)


def test_terminology_rejects_an_unknown_link_text_policy(tmp_path: Path) -> None:
    tsv = tmp_path / "terminology.tsv"
    tsv.write_text("english\tzh_TW\tlink_text\tnote\nLoRA\t低秩適應\tacronym\t\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"terminology.tsv:2: link_text 'acronym' for 'LoRA'; expected one of english, name, chinese"):
        read_terminology(tsv)


def test_catalog_problems_name_catalog_line_msgid_and_fix(tmp_path: Path) -> None:
    catalog = tmp_path / "99-seeded.po"
    catalog.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
        'msgid "The rank of {term}`LoRA` caps the update."\n'
        'msgstr "{term}`低秩適應 <LoRA>`的秩限制了更新量。"\n',
        encoding="utf-8",
    )
    assert lint_catalog(catalog, TERMS) == [
        f"{catalog}:5: msgid 'The rank of {{term}}`LoRA` caps the update.': "
        "link '{term}`低秩適應 <LoRA>`': LoRA stays in English in running text: {term}`LoRA`"
    ]


def test_terminology_header_problems_name_file_and_line(tmp_path: Path) -> None:
    tsv = tmp_path / "terminology.tsv"
    tsv.write_text("english\tzh_TW\tlink_text\tnote\nToken\t詞元\tchinese\t\nSWA\tSWA\tchinese\t\n", encoding="utf-8")
    assert lint_terminology(tsv) == [
        f"{tsv}:3: header 'SWA（SWA）' glosses 'SWA' without Chinese: give its meaning, e.g. SWA（滑動視窗注意力）"
    ]


def test_docstring_examples_run() -> None:
    assert doctest.testmod(zhlint).failed == 0


@pytest.mark.parametrize(
    ("source", "message", "expected"),
    [
        (
            "compared with a fixed baseline model's answer",
            "與一個固定基準模型的回答比較",
            ["'基準模型' for 'baseline': a baseline is a 比較基準 (Baseline in terminology.tsv): 比較基準模型, not 基準模型"],
        ),
        ("compared with a fixed baseline model's answer", "與一個固定的比較基準模型的回答比較", []),
        (
            "compare numbers only when the number of shots and the scoring method match",
            "只有在樣本數與評分方法都相同時才比較數字",
            ["'樣本數' for 'shots': the number of shots is the 範例數 (樣本 is a sample, as in pass@k)"],
        ),
        ("n ≥ k samples, 5-shot", "生成 n ≥ k 個樣本，5-shot", []),
        (
            "250 safe prompts of ten types",
            "十種類型的 250 個安全提示",
            ["'提示' for 'safe prompts': a prompt is a 提示詞 (安全提示 reads as a safety notice): 安全的提示詞, 有害提示詞"],
        ),
        ("250 safe prompts of ten types, as in few-shot prompting", "十種類型的 250 個安全的提示詞，如同少樣本提示", []),
        (
            "A JSON schema or a regular expression",
            "JSON schema 或正規表示式",
            ["'schema' for 'schema': a schema is a 綱要 in running text (JSON 綱要), as pages 06a, 15a and 17 write it"],
        ),
        ("`json_schema` there", "在該 API 中是 `json_schema`", []),
    ],
)
def test_review_zhr3_renderings_that_depend_on_the_english(source: str, message: str, expected: list[str]) -> None:
    assert context_problems(source, message) == expected

