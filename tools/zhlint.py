"""Style checks for the zh_TW translation: Traditional characters, Taiwan usage, one term one rendering.

Usage: python tools/zhlint.py locales/zh_TW/LC_MESSAGES/*.po

python-docs-zh-tw enforces its style rules by review; ours are enforced by the test
suite, which runs these checks over every translated message.  Each check works on
the text a reader sees: roles, inline code, math and link targets are reduced to
their visible text first, so markup never hides or fakes a problem.

Why not autocorrect (autocorrect-py) for the CJK/Latin spacing rule: it reads plain text,
not MyST, so it spaces one side of a role only (``這是{term}`LoRA` 的例子``: a space after
the role, none before it) and cannot report a ``.po`` message by catalog line; the
requirement is spacing as the reader sees it, located where the translator edits.

The terminology checks follow ``locales/zh_TW/POLICY.md``: its ``link_text`` column
in ``terminology.tsv`` says whether a term is written in English or in Chinese in
running text and link text, and each glossary header must say something its English
does not.
"""

from __future__ import annotations

import csv
import re
import sys
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import opencc
from babel.messages.pofile import read_po
from markdown_it import MarkdownIt

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Han characters (the ranges our text uses)."""

TERMINOLOGY = Path(__file__).resolve().parent.parent / "locales" / "zh_TW" / "terminology.tsv"
LINK_TEXT_POLICIES = ("english", "name", "chinese")
"""english: an acronym or term of art engineers keep in English (LoRA, softmax); its
Chinese expansion is only the header gloss.  name: a proper name, identifier, format
or unit (PyTorch, head_dim, FP16), whose gloss describes it.  chinese: written in Chinese."""

SEARCH_ALIAS = "search"
"""The ``link_text`` of a row that gives not the term's rendering but another name a reader
searches for it by (顯存 for VRAM); the pages never write it, so the lint skips it."""

WRITTEN_IN_LOWER_CASE = {
    "softmax", "logits", "sigmoid", "dropout", "prefill", "epoch", "kernel", "adapter", "tokenizer",
}
"""Terms of art that engineers, like the English pages, write in lower case mid-sentence."""

MAINLAND_TERMS: dict[str, str] = {
    # 預存程序 (a database's stored procedure) is the right word in Taiwan too.
    "(?<!預存)程序": "程式",
    "數據": "資料",
    "內存": "記憶體",
    "默認": "預設",
    "質量": "品質",
    "(?<!演)算法": "演算法",
    "緩存": "快取",
    "信息": "訊息 or 資訊",
    "網絡": "網路",
    "軟件": "軟體",
    "硬件": "硬體",
    "視頻": "影片",
    "接口": "介面",
    "字節": "位元組",
    "比特": "位元",
    "變量": "變數",
    "模塊": "模組",
    "線程": "執行緒",
    "屏幕": "螢幕",
    "服務器": "伺服器",
    "調用": "呼叫",
    "批量": "批次",
    "並行": "平行",
    "芯片": "晶片",
    "顯存": "顯示記憶體",
    "集成": "整合",
    # 用戶端 (a client) is what Taiwan writes, as Microsoft's Taiwan glossary does.
    "用戶(?!端)": "使用者",
    "設置": "設定",
    "示例": "範例",
    "歸一化": "正規化",
    "文檔": "文件",
    "運行": "執行",
    # 錯誤代碼, 語言代碼, 國家代碼 and 狀態代碼 are Taiwan usage too.
    "(?<!錯誤)(?<!語言)(?<!國家)(?<!狀態)代碼": "程式碼, or 整數值／編碼 for quantized values",
    # 計算力 is an ordinary word.
    "(?<!計)算力": "運算能力 or 運算量",
    # 增加載入 and 附加載荷 only look like 加載.
    "(?<![增附追])加載": "載入 (software) or 增加負載 (electrical load)",
    "查找": "查詢, 查表 or 尋找",
    "向[上下]取整": "無條件進位／無條件捨去 (round up／down), as reference-memory writes it",
    "槽位": "slot (llama-server's slots, as its -np help says)",
    "客戶端": "用戶端",
    "條帶化?": "等量 (striping, as in RAID 0)",
    "[占佔]位符": "預留位置",
    "海量": "大量 or 龐大的",
    "卡頓": "停頓",
    "端到端": "端對端 (end-to-end)",
    "(?<!相)當前": "目前, or 這一步的 for the current step",
    "視圖": "view (a tensor view, as PyTorch names it) or 檢視",
    # Taiwan's statistics writes 概似 (最大概似估計); 似然 is the mainland word.
    "似然": "概似 (概似度, 最大概似估計)",
    # 放大模型, 擴大模型 and 加大模型 mean "make the model bigger"; 強大模型 is "a strong model".
    "(?<![放擴加強巨龐])大模型": "大型模型 or 較大的模型",
}
"""Mainland usage (regex) -> what Taiwan writes instead."""

HOUSE_TERMS: dict[str, str] = {
    "LM 輸出頭": "語言模型輸出頭",
    "(?i:up|down) 投影|(?<![之以])[上下]投影": "升維投影／降維投影 (up/down projection)",
    "破壞性壓縮": "失真壓縮",
    "依賴關係": "相依關係",
    "腦浮點": "BF16 (header gloss: Brain 16 位元浮點數)",
    "吉位元組|吉比位元組": "GB／GiB (header gloss: 十億位元組／2³⁰ 位元組)",
    "提示詞詞元": "提示詞的詞元 or 提示詞中的詞元",
    "套件登錄庫": "套件庫（package registry）",
    "開關(?=網站導覽|本頁目錄)": "切換",
    # Prefill is the GPU pass over the prompt; 預處理/前處理 reads as CPU-side preprocessing.
    "提示詞預處理|預處理": "prefill (header gloss 預填); 前處理 for preprocessing",
    "張量運算核心": "Tensor 核心 (as NVIDIA Taiwan writes it)",
    "縮放值": "縮放因子 (the quantization scale)",
    "對話模型": "聊天模型 (Chat model)",
    "混合專家(?!模型)": "混合專家模型 (MoE); 專家 alone is one expert",
    # 評分詞元, 部分詞元, 得分詞, 切分詞元 … only look like 分詞.
    "(?<![部評區充百成積微給得計滿總切])分詞": "tokenizer (header gloss 詞元切分器), 詞元切分 for tokenization",
    "詞條": "條目 (a glossary entry)",
    "(?:詞元|輸入|提示詞)的?脈絡": "上下文 (as in 上下文視窗, context window)",
    "玩具": "示範, 小型示範 (a toy example)",
    "第 0\\d|(?<=[到與和、及] )0\\d(?=[a-z]? 頁)": "第 1 頁 (page numbers are not zero-padded)",
    # 稠密 pairs with 稀疏 (sparse); 密集 stays for things packed closely (levels dense near zero).
    "密集(?=模型|層|運算|峰值|前饋|段落)": "稠密 (a dense model, layer, computation or retrieval)",
    "門控": "閘控 (gated; the gate itself is 閘門)",
    "前 ?k ?個": "top-k (the router's top-k, as POLICY.md writes it)",
    r"et al\.": "等人 (Kaplan 等人，2020)",
    r"\d %": "50% (no space before the percent sign)",
    # A bare gate stays only in the FFN's code-like triple 「gate、up、down」.
    "gate ?投影|gate ?[與及/] ?(?:up|升維)": "閘控投影與升維投影 (the FFN gate and up projections)",
    # Both are standard characters; the site writes 占 (占用, 占了) throughout.
    "佔": "占 (占用, 不占 KV 快取)",
    "(?<=\\d )年[一二三四五六七八九十]+月": "2024 年 6 月 (months in Arabic numerals, as the years are)",
    "上限壓縮": "軟上限（soft-capping）",
    "偏離懲罰": "偏移懲罰 (drift penalty)",
    # 回歸 is a return (回歸本業); statistics and testing write 迴歸.
    "回歸(?=測試|分析|模型)": "迴歸 (迴歸測試, a regression test)",
    # terminology.tsv's Compute-bound; 運算能力 is a card's compute capability (運算能力 8.0).
    "受運算能力限制": "受運算限制 (Compute-bound, as terminology.tsv writes it)",
    # A bare 閘 (a sluice) is neither the gate (閘門) nor the FFN's gate projection (閘控投影).
    "閘(?![門控])": "閘門 (the gate) or 閘控 (gated; the FFN's gate projection is 閘控投影)",

    # POLICY.md's table: the CUDA context is a 執行環境, and 上下文 is the model's context window.
    "CUDA (?:context|上下文)": "CUDA 執行環境 (the CUDA context)",
}
"""A second rendering of a term the glossary writes one way (regex) -> the rendering it uses."""

COLUMN_AS_HANG = re.compile(r"[列與每某一幾個兩]行|\d+ 行|行向量")
"""行 for a matrix column: correct in Taiwan, but 行 is also what mainland texts call a row."""

CONTEXT_TERMS: tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...] = (
    (re.compile(r"\bpresets?\b"), re.compile("預設(?:設定|組態|值|模型|(?:權重)?格式)"),
     "a preset is not a default: write 內建組態（preset） or 參考組態"),
    (re.compile(r"\bcolumns?\b"), COLUMN_AS_HANG, "a matrix column is 欄 throughout, never 行"),
    (re.compile(r"(?s)^(?!.*[Ff]oundation).*?(?P<said>\b[Bb]ase (?:model|weights?|version)\b)"),
     re.compile("基礎(?:模型|權重|版本)"),
     "base is 基底 (基底模型, 基底權重, 基底版本); 基礎模型 is a foundation model"),
    # In Taiwan 配置 is memory allocation (記憶體配置器); a software set-up is a 設定.
    (re.compile(r"(?is)^(?!.*\ballocat).*?(?P<said>\bset-?ups?\b)"), re.compile("配置"),
     "a set-up is a 設定; 配置 is kept for allocation (配置記憶體)"),
    # 以下 counts its own number in (as 以上 and 以內 do), so "below 8.0" is 低於 8.0, not 8.0 以下.
    (re.compile(r"\bbelow\b[^.;]*?\d+(?:\.\d+)?"), re.compile(r"\d(?:\.\d+)? ?以下"),
     "以下 includes its number: below N is 低於 N (or 未滿 N)"),
    (re.compile(r"\bSFT\b|[Ss]upervised fine-tuning"), re.compile("指令微調"),
     "SFT is 監督式微調; 指令微調 is instruction tuning"),
    (re.compile(r"(?s)^(?!.*(?:LoRA|lora_alpha|alpha|\u03b1)).*?(?P<said>\bscal(?:e|es|ed|ing)\b)"),
     re.compile("縮放係數"),
     "a scale is 縮放因子; 縮放係數 is only LoRA's alpha/r (lora_alpha)"),
    # Math reads as x in the visible text: 前 $k$ 名 is checked as 前 x 名.
    (re.compile(r"\btop[- ]\(?\$?k\$?"), re.compile("前 ?[kx] ?名"), "write top-$k$ (as Top-k 取樣), not 前 k 名"),
    # 核心 is a core: pages 07 and 08 call CUDA cores 一般核心, so a kernel rendered 核心 reads as hardware.
    # The header gloss 核心函式 and a sentence whose English also says core are left alone.
    (re.compile(r"(?is)^(?!.*\bcores?\b).*?(?P<said>\bkernels?\b)"), re.compile("核心(?!函式)"),
     "a kernel is not a core (一般核心 are CUDA cores): keep kernel in English, as POLICY.md says"),
    # Adam's first moment is the momentum (動量), its second is not; page 04 names both 動差.
    # An identifier such as ``sgd-momentum`` is not the word momentum in the sentence.
    (re.compile(r"(?s)^(?!.*(?<![-_])\bmomentum\b).*?(?P<said>\bmoments?\b)"), re.compile("動量"),
     "Adam's moments are 動差 (一階動差 is the momentum, 二階動差 is not)"),
    (re.compile(r"\blayouts?\b"), re.compile("布局"), "a model's layout is 版型, as page 19 writes it"),
    # 版面 is a page's layout; how a kernel lays a tensor out in memory is its 排列方式.
    (re.compile(r"\blayouts?\b|\blays?\b[^.;]*?\bout\b"), re.compile("版面"),
     "a tensor's layout in memory is its 排列方式 (版面 is a page layout; a model's layout is 版型)"),
    # The planner's presets are configurations (內建組態); a docstring on "the built-in models" may say 內建模型.
    (re.compile(r"(?is)^(?!.*\bbuilt-in models?\b).*?(?P<said>\bpresets?\b)"), re.compile("內建模型"),
     "a preset is a 內建組態（preset）, as POLICY.md writes it"),
    # terminology.tsv keeps CUDA graph in English in running text; 執行圖 is only its header gloss.
    (re.compile(r"\bgraphs?\b"), re.compile("(?<!CUDA )執行圖"),
     "CUDA graph stays in English in running text (header gloss CUDA 執行圖)"),
    (re.compile(r"(?is)^(?!.*\bvocabular).*?(?P<said>\bglossary\b)"), re.compile("詞彙表"),
     "the site is a 術語表; 詞彙表 is a model's vocabulary"),
    # RoPE's base b (rope_theta) is 底數, as in 對數的底數; 基數 is a radix (基數樹, a radix tree).
    (re.compile(r"\bbase\b"), re.compile("基數(?!樹)"),
     "RoPE's base (rope_theta) is 底數, as page 05 writes it; 基數 is a radix (基數樹)"),

    # On the benchmarks page 基準 alone is a benchmark, so a baseline model must say 比較基準.
    (re.compile(r"\bbaselines?\b"), re.compile("(?<!比較)基準模型"),
     "a baseline is a 比較基準 (Baseline in terminology.tsv): 比較基準模型, not 基準模型"),
    # 樣本 also means the samples of pass@k and maj@k; the shots of a prompt are its solved examples.
    (re.compile(r"\d-shot\b|\bshots?\b"), re.compile("樣本數"),
     "the number of shots is the 範例數 (樣本 is a sample, as in pass@k)"),
    # 安全提示 reads as a safety notice.
    (re.compile(r"\b(?:safe|unsafe|harmful) prompts?\b"), re.compile("(?<!系統)(?<!樣本)提示(?![詞工模微查])"),
     "a prompt is a 提示詞 (安全提示 reads as a safety notice): 安全的提示詞, 有害提示詞"),
    # vLLM preempts a sequence it has no KV blocks for (and recomputes it later): 踢出 is colloquial.
    (re.compile(r"\bpreempt"), re.compile("踢出"), "vLLM preempts a sequence: 搶占 (preempt), not the colloquial 踢出"),
    (re.compile(r"\bschemas?\b"), re.compile(r"\bschema\b"),
     "a schema is a 綱要 in running text (JSON 綱要), as pages 06a, 15a and 17 write it"),
)
"""(English in the source, rendering in the translation, fix) for words whose right
rendering depends on what the English says: 基礎模型 is right for a foundation model,
縮放係數 for LoRA's alpha/r, 前 k 名 for "the best k" of an analogy."""

MARKDOWN = MarkdownIt("commonmark")
ROLE = re.compile(r"\{[a-z:]+\}`([^`<]*?)\s*(?:<[^`>]*>)?`")
INLINE_CODE = re.compile(r"``?[^`]+``?")
MATH = re.compile(r"\$[^$]+\$")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
EMPHASIS = re.compile(r"\*{1,2}")

# Lookaheads, so that overlapping pairs ("叫x函") are each reported.
HALF_WIDTH_PUNCTUATION = re.compile(rf"(?=([{CJK}][,.;:!?()]|[,;:!?()][{CJK}]))")
MISSING_SPACE = re.compile(rf"(?=([{CJK}][A-Za-z0-9]|[A-Za-z0-9][{CJK}]))")
SPACE_AFTER_FULL_WIDTH = re.compile(r"[。，；：！？、）」] +(?=\S)")
"""A space after full-width punctuation, which already carries its own: 「**gpt-oss。** OpenAI」."""
ROLE_SEPARATOR = re.compile(r"(?<=`)[;,](?= *\{[a-z:]+\}`)")
"""An ASCII ``;`` or ``,`` between two roles (``{cite:p}`a`; {cite:p}`b```): the roles' visible text is Latin, so
the check of half-width punctuation beside Chinese never sees it, but a Chinese message lists citations with 「；」
or 「、」 (「**來源**：{cite:p}`a`；{cite:p}`b`」)."""
PLACEHOLDER_BEFORE_HAN = re.compile(rf"\{{[a-z_][a-z0-9_]*\}}[{CJK}]")
"""A widget's ``{label}`` glued to the Chinese after it: the label may end in Latin (秩 r), and then the
reader sees 「秩 r必須是」; a full-width colon or 「」 after the placeholder reads right either way.  Only
what follows is checked: values such as ``{fused}`` begin with full-width punctuation of their own."""


TERM_ROLE = re.compile(r"\{term\}`(?P<text>[^`<]*?)\s*(?:<(?P<target>[^`>]*)>)?`")
HAN = re.compile(f"[{CJK}]")
LATIN_END = re.compile(r"[A-Za-z0-9)]$")
LATIN_START = re.compile(r"^[A-Za-z]")


@dataclass(frozen=True)
class Term:
    """One row of ``terminology.tsv``: how a glossary term reads in zh_TW.

    Attributes
    ----------
    english, chinese
        The term and its rendering; the glossary header reads ``english（chinese）``.
    link_text
        One of :data:`LINK_TEXT_POLICIES`: how running text and link text write the term.
    line
        The row's line in the file, for error messages.
    """

    english: str
    chinese: str
    link_text: str
    line: int

    @property
    def header(self) -> str:
        return f"{self.english}（{self.chinese}）"

    @property
    def in_running_text(self) -> str:
        """How the policy writes the term in a sentence.

        >>> Term("Softmax", "正規化指數函數", "english", 2).in_running_text
        'softmax'
        >>> Term("LoRA", "低秩適應", "english", 3).in_running_text
        'LoRA'
        >>> Term("Token", "詞元", "chinese", 4).in_running_text
        '詞元'
        """
        if self.link_text == "chinese":
            return self.chinese
        return self.english.lower() if self.english.lower() in WRITTEN_IN_LOWER_CASE else self.english

    def link(self, target: str) -> str:
        """The ``{term}`` role that writes this term as the policy says, keeping the link's target.

        >>> Term("LoRA", "低秩適應", "english", 3).link("LoRA")
        '{term}`LoRA`'
        >>> Term("Token", "詞元", "chinese", 4).link("tokens")
        '{term}`詞元 <tokens>`'
        """
        text = self.in_running_text
        return f"{{term}}`{text}`" if text == target else f"{{term}}`{text} <{target}>`"


class Terminology(dict[str, Term]):
    """The terminology list, keyed by lower-case English, as Sphinx looks terms up."""

    @cached_property
    def spelled_out(self) -> dict[str, Term]:
        """Chinese expansions of English-policy terms, unless a Chinese-policy term shares them.

        多頭注意力 renders both MHA and Multi-head attention; only MHA keeps its acronym,
        so the words themselves stay allowed.
        """
        shared = {term.chinese for term in self.values() if term.link_text != "english"}
        return {
            term.chinese: term
            for term in self.values()
            if term.link_text == "english" and term.chinese not in shared
        }


def read_terminology(path: Path = TERMINOLOGY) -> Terminology:
    """Read ``terminology.tsv`` (columns english, zh_TW, link_text, note).

    Raises
    ------
    ValueError
        A row's ``link_text`` is not one of :data:`LINK_TEXT_POLICIES`.

    Examples
    --------
    >>> read_terminology()["lora"].link_text
    'english'
    """
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    terms = Terminology()
    for line, row in enumerate(rows, start=2):
        if row["link_text"] == SEARCH_ALIAS:
            continue
        if row["link_text"] not in LINK_TEXT_POLICIES:
            raise ValueError(
                f"{path}:{line}: link_text {row['link_text']!r} for {row['english']!r}; "
                f"expected one of {', '.join(LINK_TEXT_POLICIES)} (or {SEARCH_ALIAS} for a search alias)"
            )
        terms[row["english"].lower()] = Term(row["english"], row["zh_TW"], row["link_text"], line)
    return terms


def header_problems(term: Term) -> list[str]:
    """Why a header ``English（中文）`` says nothing its English does not (empty if it is fine).

    Examples
    --------
    >>> header_problems(Term("SWA", "SWA", "chinese", 2))
    ["header 'SWA（SWA）' glosses 'SWA' without Chinese: give its meaning, e.g. SWA（滑動視窗注意力）"]
    >>> print(*header_problems(Term("PyTorch", "PyTorch 深度學習框架", "name", 3)))  # doctest: +ELLIPSIS
    header 'PyTorch（PyTorch 深度學習框架）' repeats 'PyTorch' in its gloss: ... e.g. PyTorch（深度學習框架）
    >>> header_problems(Term("KV cache", "KV 快取", "chinese", 4))
    []
    """
    if not HAN.search(term.chinese):
        return [
            f"header {term.header!r} glosses {term.english!r} without Chinese: "
            "give its meaning, e.g. SWA（滑動視窗注意力）"
        ]
    if re.search(rf"(?<![A-Za-z]){re.escape(term.english)}(?![A-Za-z])", term.chinese, re.IGNORECASE):
        return [
            f"header {term.header!r} repeats {term.english!r} in its gloss: keep only what it "
            "means or is, e.g. PyTorch（深度學習框架）"
        ]
    return []


WIDGET_LABEL = re.compile(r"[a-z][a-z0-9_]*: ")
"""A calculator label's message: its key, a colon and a space, then the label."""


def link_problems(message: str, terminology: Terminology, source: str = "") -> list[str]:
    """Term links whose visible text contradicts the ``link_text`` policy of their term.

    A widget's label (``key: …``) whose English links a term under a short label of its
    own (``weights: {term}`Weights <weight memory>```) may do the same in Chinese: the
    label sits beside short ones, and the link leads to the full name.

    Examples
    --------
    >>> terms = Terminology(lora=Term("LoRA", "低秩適應", "english", 2), **{"weight memory": Term(
    ...     "Weight memory", "權重記憶體用量", "chinese", 3)})
    >>> link_problems("{term}`低秩適應 <LoRA>`的秩", terms)
    ["link '{term}`低秩適應 <LoRA>`': LoRA stays in English in running text: {term}`LoRA`"]
    >>> link_problems("weights: {term}`權重 <weight memory>`", terms, "weights: {term}`Weights <weight memory>`")
    []
    >>> link_problems("權重是{term}`權重 <weight memory>`", terms, "The {term}`weights <weight memory>`")
    ["link '{term}`權重 <weight memory>`': Weight memory is written in Chinese: {term}`權重記憶體用量 <weight memory>`"]
    """
    short_labels = set()
    if WIDGET_LABEL.match(source):
        for match in TERM_ROLE.finditer(source):
            target = (match["target"] or match["text"]).strip()
            if match["target"] and match["text"].strip().lower() != target.lower():
                short_labels.add(target.lower())
    problems: list[str] = []
    for match in TERM_ROLE.finditer(message):
        text, target = match["text"].strip(), (match["target"] or match["text"]).strip()
        term = terminology.get(target.lower())
        if term is None:
            problems.append(f"link {match.group()!r}: target {target!r} is not a term of terminology.tsv")
        elif term.link_text == "chinese" and term.chinese not in text and target.lower() not in short_labels:
            problems.append(f"link {match.group()!r}: {term.english} is written in Chinese: {term.link(target)}")
        elif term.link_text != "chinese" and (target.lower() not in text.lower() or term.chinese in text):
            problems.append(
                f"link {match.group()!r}: {term.english} stays in English in running text: {term.link(target)}"
            )
    return problems


def is_gloss(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` glosses the English beside it.

    The gloss follows the English, ``LoRA（低秩適應）``, or precedes it, ``低秩適應（LoRA）``.
    """
    opening = text.rfind("（", 0, start)
    after_english = opening > 0 and "）" not in text[opening:start] and bool(LATIN_END.search(text[:opening]))
    before_english = text[end : end + 1] == "（" and bool(LATIN_START.search(text[end + 1 :]))
    return after_english or before_english


def expansion_problems(message: str, terminology: Terminology) -> list[str]:
    """Running text that spells out a term the policy keeps in English, outside a gloss.

    Examples
    --------
    >>> terms = Terminology(lora=Term("LoRA", "低秩適應", "english", 2))
    >>> expansion_problems("先做低秩適應，再合併。", terms)
    ["'低秩適應' spells out LoRA: write 'LoRA' in running text (the header 'LoRA（低秩適應）' glosses it)"]
    >>> expansion_problems("LoRA（低秩適應）只訓練兩個小矩陣。", terms)
    []
    """
    text = visible_text(TERM_ROLE.sub(lambda match: (match["target"] or match["text"]).strip(), message))
    return [
        f"{found.group()!r} spells out {term.english}: write {term.in_running_text!r} in running text "
        f"(the header {term.header!r} glosses it)"
        for rendering, term in terminology.spelled_out.items()
        if rendering in text  # most are absent: a substring test is far cheaper than a pattern search
        for found in re.finditer(re.escape(rendering), text)
        if not is_gloss(text, found.start(), found.end())
    ]


def context_problems(source: str, message: str) -> list[str]:
    """Renderings that are wrong for what this message's English says (see :data:`CONTEXT_TERMS`).

    Examples
    --------
    >>> context_problems("In the reference preset", "在參考預設設定中")
    ["'預設設定' for 'preset': a preset is not a default: write 內建組態（preset） or 參考組態"]
    """
    text = visible_text(message)
    problems: list[str] = []
    for english, rendering, fix in CONTEXT_TERMS:
        said = english.search(source)
        if said:
            # A pattern that must look at the whole English (``(?!.*foundation)``) names the word it found.
            word = said["said"] if "said" in english.groupindex else said.group()
            problems += [f"{found.group()!r} for {word!r}: {fix}" for found in rendering.finditer(text)]
    return problems


def visible_text(message: str) -> str:
    """Approximate what a reader sees: roles show their text, code and math are opaque."""
    text = ROLE.sub(lambda match: match.group(1), message)
    text = INLINE_CODE.sub("x", text)
    text = MATH.sub("x", text)
    text = LINK.sub(lambda match: match.group(1), text)
    return EMPHASIS.sub("", text)


@cache
def simplified_only_characters() -> frozenset[str]:
    """Characters that exist only in Simplified Chinese, from OpenCC's dictionaries.

    A character is Simplified-only when OpenCC's Simplified-to-Taiwan conversion
    changes it and it is not a Traditional character in its own right: 台, 干 and 后
    are converted in some words but are correct Traditional characters, and 峰 or 群
    are what Taiwan writes even though OpenCC's plain Traditional prefers 峯 and 羣.
    """
    dictionaries = Path(opencc.__file__).parent / "dictionary"
    to_taiwan = opencc.OpenCC("s2tw")
    simplified: set[str] = set()
    traditional: set[str] = set()
    for line in (dictionaries / "STCharacters.txt").read_text(encoding="utf-8").splitlines():
        source, targets = line.split("\t")
        if to_taiwan.convert(source) != source:
            simplified.add(source)
        traditional.update(targets.split())
        traditional.update(to_taiwan.convert(target) for target in targets.split())
    for line in (dictionaries / "TSCharacters.txt").read_text(encoding="utf-8").splitlines():
        traditional.add(line.split("\t")[0])
    return frozenset(simplified - traditional)


def stray_emphasis_markers(message: str) -> list[str]:
    """Text runs in which ``*`` survives Markdown parsing, i.e. shows up literally.

    CommonMark does not close ``**`` right after punctuation when a letter follows,
    so ``**重要：**說明`` shows its asterisks; ``**重要**：說明`` works.
    """
    tokens = MARKDOWN.parseInline(MATH.sub("x", message))
    return [
        child.content
        for token in tokens
        for child in token.children or []
        if child.type == "text" and "*" in child.content
    ]


def lint_text(message: str) -> list[str]:
    """Every style problem of one translated message, as readable sentences."""
    problems: list[str] = []
    simplified = sorted({char for char in message if char in simplified_only_characters()})
    if simplified:
        problems.append(f"Simplified-only characters {''.join(simplified)!r}")
    for pattern, taiwan in MAINLAND_TERMS.items():
        for match in re.finditer(pattern, message):
            problems.append(f"mainland term {match.group()!r}: Taiwan writes {taiwan!r}")
    for pattern, house in HOUSE_TERMS.items():
        for match in re.finditer(pattern, message):
            problems.append(f"second rendering {match.group()!r}: the glossary writes {house!r}")
    stray = stray_emphasis_markers(message)
    if stray:
        problems.append(f"emphasis markers that will show as asterisks: {stray!r}")
    text = visible_text(message)
    for match in HALF_WIDTH_PUNCTUATION.finditer(text):
        problems.append(f"half-width punctuation next to Chinese text: {match.group(1)!r}")
    for match in SPACE_AFTER_FULL_WIDTH.finditer(text):
        problems.append(f"space after full-width punctuation: {match.group()!r}: write 「**gpt-oss**：OpenAI」")
    for match in MISSING_SPACE.finditer(text):
        problems.append(f"no space between Chinese and Latin text: {match.group(1)!r}")
    if HAN.search(text):
        for match in ROLE_SEPARATOR.finditer(message):
            problems.append(f"half-width {match.group()!r} between two roles in Chinese text: write 「；」 or 「、」")
    for match in PLACEHOLDER_BEFORE_HAN.finditer(text):
        problems.append(
            f"placeholder glued to Chinese text: {match.group()!r}: its value may end in Latin; "
            "put a full-width colon or 「」 after it"
        )
    return problems


def lint_message(source: str, message: str, terminology: Terminology) -> list[str]:
    """Every problem of one translated message: style, Taiwan usage and terminology policy."""
    return [
        *lint_text(message),
        *link_problems(message, terminology, source),
        *expansion_problems(message, terminology),
        *context_problems(source, message),
    ]


def lint_catalog(path: Path, terminology: Terminology | None = None) -> list[str]:
    """``file:line: msgid '…': problem`` for every translated message of a ``.po`` file."""
    terms = read_terminology() if terminology is None else terminology
    with path.open("rb") as handle:
        catalog = read_po(handle)
    return [
        f"{path}:{message.lineno}: msgid {message.id[:60]!r}: {problem}"
        for message in catalog
        if message.id and isinstance(message.string, str) and message.string
        for problem in lint_message(message.id, message.string, terms)
    ]


def lint_terminology(path: Path = TERMINOLOGY) -> list[str]:
    """``file:line: problem`` for every header gloss of the terminology list that says nothing new."""
    return [
        f"{path}:{term.line}: {problem}"
        for term in read_terminology(path).values()
        for problem in header_problems(term)
    ]


def main(argv: list[str]) -> int:
    problems = [*lint_terminology(), *(problem for name in argv for problem in lint_catalog(Path(name)))]
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(argv)} catalogs clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
