"""Build the demo OpenAlex snapshot in demo/openalex/ from the tables below.

Run from the repository root:  .venv/bin/python demo/build_demo_snapshot.py

The output mimics the layout of the OpenAlex snapshot (one folder per entity, JSON Lines part
files under updated_date=...), so `manage.py import_openalex demo/openalex --sync` loads it like
real data. The four demo researchers come from the seed pages listed in demo/README.md.

Rules the tables follow:
- Titles and abstracts are the seed text, verbatim (LaTeX such as $\\times$ and 43\\% included).
  A work whose seed gives no abstract gets abstract_inverted_index null.
- Author names are written as the seed prints them, without equal-contribution markers
  ("Zhuang Wang*" -> "Zhuang Wang"); bylines a seed cuts short with "et al." are completed
  from the paper's arXiv listing. NAME_ALIASES joins spellings of one person.
- Ids are synthetic (W99..., A99..., I99..., S99...) except arXiv's real source id. arXiv ids,
  DOIs, ROR ids and dates appear only where they were checked; unknown values stay null.
- Everything is derived deterministically: running the script twice gives identical bytes.
"""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import orjson

SNAPSHOT_DATE = "2026-11-01"
SNAPSHOT_YEAR = 2026
# A CV or homepage entry that runs "to present" is taken to run to the snapshot year.
PRESENT_YEAR = SNAPSHOT_YEAR
OUTPUT_DIR = Path(__file__).resolve().parent / "openalex"
ENTITIES = ("works", "authors", "institutions", "sources")
OPENALEX = "https://openalex.org/"
ARXIV_SOURCE_ID = "https://openalex.org/S4306400194"  # arXiv's real OpenAlex source id


def _text(wrapped: str) -> str:
    """Join a paragraph wrapped over several source lines back into one line.

    The paragraphs below were wrapped only at single spaces, so joining the stripped lines
    with one space restores the seed text exactly.
    """
    return " ".join(line.strip() for line in wrapped.strip().splitlines())


# --------------------------------------------------------------------------------------------
# Topics: arXiv categories, placed in OpenAlex's subfield > field > domain taxonomy.
# --------------------------------------------------------------------------------------------

DOMAINS = {"3": "Physical Sciences"}
FIELDS = {"17": ("Computer Science", "3"), "22": ("Engineering", "3")}
SUBFIELDS = {
    "1702": ("Artificial Intelligence", "17"),
    "1705": ("Computer Networks and Communications", "17"),
    "1707": ("Computer Vision and Pattern Recognition", "17"),
    "1708": ("Hardware and Architecture", "17"),
    "1712": ("Software", "17"),
    "2208": ("Electrical and Electronic Engineering", "22"),
}
# category -> (official arXiv name, OpenAlex subfield)
CATEGORIES = {
    "cs.AI": ("Artificial Intelligence", "1702"),
    "cs.AR": ("Hardware Architecture", "1708"),
    "cs.CL": ("Computation and Language", "1702"),
    "cs.CV": ("Computer Vision and Pattern Recognition", "1707"),
    "cs.DC": ("Distributed, Parallel, and Cluster Computing", "1705"),
    "cs.ET": ("Emerging Technologies", "1708"),
    "cs.LG": ("Machine Learning", "1702"),
    "cs.NI": ("Networking and Internet Architecture", "1705"),
    "cs.SE": ("Software Engineering", "1712"),
    "eess.SP": ("Signal Processing", "2208"),
}
PRIMARY_TOPIC_SCORE = 1.0
SECONDARY_TOPIC_SCORE = 0.5


# --------------------------------------------------------------------------------------------
# Institutions. ROR ids only where checked; homepages are the institutions' public sites.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Institution:
    key: str
    display_name: str
    country_code: str
    type: str
    homepage_url: str | None = None
    ror: str | None = None
    alternatives: tuple[str, ...] = ()


INSTITUTIONS = (
    # Seed 002 (Zhenhua Zhu) and his coauthors' bylines.
    Institution(
        "tsinghua",
        "Tsinghua University",
        "CN",
        "education",
        "https://www.tsinghua.edu.cn",
        ror="https://ror.org/03cve4549",
        alternatives=("THU",),
    ),
    Institution(
        "berkeley",
        "University of California, Berkeley",
        "US",
        "education",
        "https://www.berkeley.edu",
        ror="https://ror.org/01an7q238",
        alternatives=("UC Berkeley",),
    ),
    Institution("bytedance", "ByteDance", "CN", "company", "https://www.bytedance.com"),
    Institution("infinigence", "Infinigence AI", "CN", "company"),
    Institution(
        "sjtu",
        "Shanghai Jiao Tong University",
        "CN",
        "education",
        "https://www.sjtu.edu.cn",
        alternatives=("SJTU",),
    ),
    Institution(
        "tencent",
        "Tencent",
        "CN",
        "company",
        "https://www.tencent.com",
        alternatives=("WeChat, Tencent", "Weixin Group, Tencent"),
    ),
    Institution(
        "ict",
        "Institute of Computing Technology, Chinese Academy of Sciences",
        "CN",
        "facility",
        "https://www.ict.ac.cn",
        alternatives=("ICT, CAS", "ICT CAS"),
    ),
    # Seed 003 (Zhuang Wang).
    Institution(
        "rice",
        "Rice University",
        "US",
        "education",
        "https://www.rice.edu",
        ror="https://ror.org/008zs3103",
    ),
    Institution(
        "aws",
        "Amazon Web Services AI",
        "US",
        "company",
        "https://aws.amazon.com",
        alternatives=("Amazon Web Services", "AWS AI"),
    ),
    Institution(
        "kaust",
        "King Abdullah University of Science and Technology",
        "SA",
        "education",
        "https://www.kaust.edu.sa",
        ror="https://ror.org/01q3tbs38",
        alternatives=("KAUST",),
    ),
    Institution(
        "hust",
        "Huazhong University of Science and Technology",
        "CN",
        "education",
        "https://www.hust.edu.cn",
        ror="https://ror.org/00p991c53",
        alternatives=("HUST",),
    ),
    # Seed 004 (Zhongzhu Zhou).
    Institution(
        "usyd",
        "The University of Sydney",
        "AU",
        "education",
        "https://www.sydney.edu.au",
        ror="https://ror.org/0384j8v12",
        alternatives=("University of Sydney", "USYD"),
    ),
    Institution(
        "sysu",
        "Sun Yat-sen University",
        "CN",
        "education",
        "https://www.sysu.edu.cn",
        ror="https://ror.org/0064kty71",
        alternatives=("SYSU",),
    ),
    Institution(
        "together",
        "Together AI",
        "US",
        "company",
        "https://www.together.ai",
        alternatives=("Together.AI",),
    ),
    Institution(
        "microsoft",
        "Microsoft",
        "US",
        "company",
        "https://www.microsoft.com",
        ror="https://ror.org/00d0nc645",
        alternatives=("Microsoft (United States)",),
    ),
    Institution(
        "dolby",
        "Dolby Laboratories",
        "US",
        "company",
        "https://www.dolby.com",
        alternatives=("Dolby",),
    ),
    Institution(
        "uiuc",
        "University of Illinois Urbana-Champaign",
        "US",
        "education",
        "https://illinois.edu",
        ror="https://ror.org/047426m28",
        alternatives=("UIUC",),
    ),
)


# --------------------------------------------------------------------------------------------
# Sources: one per venue series ("SOSP '23" -> ACM Symposium on Operating Systems Principles).
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    key: str
    display_name: str
    abbreviated_title: str
    type: str
    homepage_url: str | None = None
    issn_l: str | None = None
    openalex_id: str | None = None
    alternate_titles: tuple[str, ...] = ()


SOURCES = (
    Source(
        "arxiv",
        "arXiv (Cornell University)",
        "arXiv",
        "repository",
        "https://arxiv.org",
        openalex_id=ARXIV_SOURCE_ID,
    ),
    Source("sosp", "ACM Symposium on Operating Systems Principles", "SOSP", "conference"),
    Source(
        "mlsys",
        "Conference on Machine Learning and Systems",
        "MLSys",
        "conference",
        "https://mlsys.org",
    ),
    Source(
        "eurosys",
        "European Conference on Computer Systems",
        "EuroSys",
        "conference",
        alternate_titles=("The European Conference on Computer Systems",),
    ),
    Source(
        "icml",
        "International Conference on Machine Learning",
        "ICML",
        "conference",
        "https://icml.cc",
    ),
    Source("ton", "IEEE/ACM Transactions on Networking", "ToN", "journal", issn_l="1063-6692"),
    Source("hotnets", "ACM Workshop on Hot Topics in Networks", "HotNets", "conference"),
    Source(
        "ecmlpkdd",
        "European Conference on Machine Learning and Principles and Practice of Knowledge"
        " Discovery in Databases",
        "ECML-PKDD",
        "conference",
    ),
    Source(
        "cluster", "IEEE International Conference on Cluster Computing", "CLUSTER", "conference"
    ),
    Source("cf", "ACM International Conference on Computing Frontiers", "CF", "conference"),
    Source(
        "iwqos", "IEEE/ACM International Symposium on Quality of Service", "IWQoS", "conference"
    ),
    Source("icse", "International Conference on Software Engineering", "ICSE", "conference"),
    Source(
        "vldb",
        "International Conference on Very Large Data Bases",
        "VLDB",
        "conference",
        "https://vldb.org",
        alternate_titles=("International Conference on Very Large Databases",),
    ),
    Source(
        "neurips",
        "Annual Conference on Neural Information Processing Systems",
        "NeurIPS",
        "conference",
        "https://neurips.cc",
    ),
    Source("atc", "USENIX Annual Technical Conference", "USENIX ATC", "conference"),
    Source(
        "iclr",
        "International Conference on Learning Representations",
        "ICLR",
        "conference",
        "https://iclr.cc",
    ),
    Source(
        "sensors",
        "Sensors",
        "Sensors",
        "journal",
        "https://www.mdpi.com/journal/sensors",
        issn_l="1424-8220",
    ),
    Source(
        "tpami",
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        "TPAMI",
        "journal",
        issn_l="0162-8828",
    ),
)


# --------------------------------------------------------------------------------------------
# People. The four demo researchers get the first author ids (A9900000001..4); everybody else
# is a coauthor, numbered in order of first appearance in WORKS.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    display_name: str
    alternatives: tuple[str, ...] = ()
    # (institution key, first year, last year) from a CV or homepage timeline. Empty: the
    # affiliations are derived from the institutions on the person's bylines.
    timeline: tuple[tuple[str, int, int], ...] = ()
    last_known: tuple[str, ...] | None = None  # None: derived from the latest byline
    no_affiliations: bool = False


PEOPLE = (
    # Seed 000: "Affiliation not imported", so no affiliations at all.
    Person("Zhizhen Zhong", alternatives=("Zhong Zhizhen",), no_affiliations=True),
    # Seed 002: affiliations come from his bylines (Tsinghua on all eight).
    Person("Zhenhua Zhu", alternatives=("Zhu Zhenhua",)),
    # Seed 003: the homepage timeline.
    Person(
        "Zhuang Wang",
        alternatives=("Wang Zhuang",),
        timeline=(
            ("aws", 2022, PRESENT_YEAR),
            ("rice", 2019, 2023),
            ("bytedance", 2021, 2022),
            ("kaust", 2019, 2019),
            ("ict", 2014, 2017),
            ("hust", 2010, 2014),
        ),
        last_known=("aws",),
    ),
    # Seed 004: the CV's Work and Education sections.
    Person(
        "Zhongzhu Zhou",
        alternatives=("Zhou Zhongzhu",),
        timeline=(
            ("together", 2024, PRESENT_YEAR),
            ("dolby", 2024, 2024),
            ("microsoft", 2023, 2024),
            ("usyd", 2022, 2026),
            ("sysu", 2015, 2022),
            ("tencent", 2018, 2020),
            ("uiuc", 2018, 2018),
        ),
        last_known=("together",),
    ),
)

# Spellings of one person -> the display name used for their author record.
NAME_ALIASES = {
    "Jack YB Lee": "Jack Y. B. Lee",
    "Jue WANG": "Jue Wang",
    "Xiaoxia Shirley Wu": "Xiaoxia Wu",
    "Leon Song": "Shuaiwen Leon Song",
    # Typos in the seed CV; the published bylines (arXiv 2310.04610, doi:10.3390/s21206868)
    # spell these names "Bonnie Kruft" and "Zhuo Su".
    "Bonnie Krufft": "Bonnie Kruft",
    "Zhou Su": "Zhuo Su",
}


# --------------------------------------------------------------------------------------------
# Works. Authors are listed in byline order as "Name" or "Name [institution, ...]".
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Work:
    title: str
    year: int
    type: str
    authors: tuple[str, ...]
    topics: tuple[str, ...]  # arXiv categories, primary first
    cited_by_count: int
    date: str | None = None  # only when the seed or the arXiv listing gives the day
    venue: str | None = None  # key into SOURCES
    arxiv_id: str | None = None
    doi: str | None = None
    landing_page_url: str | None = None
    abstract: str | None = None
    language: str = "en"


# Seed 000: Zhizhen Zhong has exactly these two works. The seed profile counts 4 close
# collaborators, so each byline is abridged to two coauthors of the real arXiv author list
# (the first author and one seed-named collaborator), keeping byline order.
WORKS_ZHIZHEN_ZHONG = (
    Work(
        title="Analyzing Communication Predictability in LLM Training",
        year=2025,
        date="2025-12-31",
        type="preprint",
        arxiv_id="2512.24750",
        authors=("Wenxue Li", "Xudong Liao", "Zhizhen Zhong"),
        topics=("cs.NI", "cs.DC"),
        cited_by_count=2,
        abstract=_text(
            r"""
            Effective communication is essential in distributed training, with predictability
            being one of its most significant characteristics. However, existing studies
            primarily focus on exploiting predictability through online profiling for runtime
            optimization, without a systematic understanding of it. In this work, we aim to
            systematically formulate communication predictability in distributed training,
            particularly in Large Language Models (LLMs) that utilize hybrid parallelism. Our
            analysis focuses on both traffic patterns and communication overhead. Specifically,
            we investigate predictable traffic patterns in typical LLMs and evaluate how various
            factors influence GPU utilization and effective bandwidth (two critical variables
            affecting communication overhead). Furthermore, we develop an analytical formulation
            to estimate communication overhead in LLM training, which is validated with high
            accuracy against empirical data. Leveraging this formulation, we propose a
            configuration tuning tool, ConfigTuner, to optimize training performance. Compared
            to Megatron-LM, the training configurations optimized by ConfigTuner demonstrate up
            to a 1.36$\times$ increase in throughput. Compared to Alpa, ConfigTuner generates
            the same configuration suggestion while significantly reducing the search
            complexity.
            """
        ),
    ),
    Work(
        title="Netcast: Low-Power Edge Computing with WDM-defined Optical Neural Networks",
        year=2022,
        date="2022-07-05",
        type="preprint",
        arxiv_id="2207.01777",
        authors=("Ryan Hamerly", "Zhizhen Zhong", "Dirk Englund"),
        topics=("cs.ET",),
        cited_by_count=11,
        abstract=_text(
            r"""
            This paper analyzes the performance and energy efficiency of Netcast, a recently
            proposed optical neural-network architecture designed for edge computing. Netcast
            performs deep neural network inference by dividing the computational task into two
            steps, which are split between the server and (edge) client: (1) the server employs
            a wavelength-multiplexed modulator array to encode the network's weights onto an
            optical signal in an analog time-frequency basis, and (2) the client obtains the
            desired matrix-vector product through modulation and time-integrated detection. The
            simultaneous use of wavelength multiplexing, broadband modulation, and integration
            detection allows large neural networks to be run at the client by effectively
            pushing the energy and memory requirements back to the server. The performance and
            energy efficiency are fundamentally limited by crosstalk and detector noise,
            respectively. We derive analytic expressions for these limits and perform numerical
            simulations to verify these bounds.
            """
        ),
    ),
)

# Seed 002: Zhenhua Zhu's eight arXiv papers; "et al." bylines completed from the arXiv
# listings, institutions from the papers' affiliation lists. Citations sum to the seed's 63.
WORKS_ZHENHUA_ZHU = (
    Work(
        title="EPIM: Efficient Processing-In-Memory Accelerators based on Epitome",
        year=2023,
        date="2023-11-12",
        type="preprint",
        arxiv_id="2311.07620",
        authors=(
            "Chenyu Wang",
            "Zhen Dong [berkeley]",
            "Daquan Zhou [bytedance]",
            "Zhenhua Zhu [tsinghua]",
            "Yu Wang [tsinghua]",
            "Jiashi Feng [bytedance]",
            "Kurt Keutzer [berkeley]",
        ),
        topics=("cs.AR", "cs.LG"),
        cited_by_count=9,
        abstract=_text(
            r"""
            The utilization of large-scale neural networks on Processing-In-Memory (PIM)
            accelerators encounters challenges due to constrained on-chip memory capacity. To
            tackle this issue, current works explore model compression algorithms to reduce the
            size of Convolutional Neural Networks (CNNs). Most of these algorithms either aim to
            represent neural operators with reduced-size parameters (e.g., quantization) or
            search for the best combinations of neural operators (e.g., neural architecture
            search). Designing neural operators to align with PIM accelerators' specifications
            is an area that warrants further study. In this paper, we introduce the Epitome, a
            lightweight neural operator offering convolution-like functionality, to craft
            memory-efficient CNN operators for PIM accelerators (EPIM). On the software side, we
            evaluate epitomes' latency and energy on PIM accelerators and introduce a PIM-aware
            layer-wise design method to enhance their hardware efficiency. We apply
            epitome-aware quantization to further reduce the size of epitomes. On the hardware
            side, we modify the datapath of current PIM accelerators to accommodate epitomes and
            implement a feature map reuse technique to reduce computation cost. Experimental
            results reveal that our 3-bit quantized EPIM-ResNet50 attains 71.59% top-1 accuracy
            on ImageNet, reducing crossbar areas by 30.65 times. EPIM surpasses the
            state-of-the-art pruning methods on PIM.
            """
        ),
    ),
    Work(
        title=(
            "db-SP: Accelerating Sparse Attention for Visual Generative Models with"
            " Dual-Balanced Sequence Parallelism"
        ),
        year=2025,
        date="2025-11-28",
        type="preprint",
        arxiv_id="2511.23113",
        authors=(
            "Siqi Chen [tsinghua]",
            "Ke Hong [tsinghua]",
            "Tianchen Zhao [tsinghua]",
            "Ruiqi Xie [tsinghua]",
            "Zhenhua Zhu [tsinghua]",
            "Xudong Zhang [tsinghua]",
            "Yu Wang [tsinghua]",
        ),
        topics=("cs.CV", "cs.LG"),
        cited_by_count=1,
        abstract=_text(
            r"""
            Scaling Diffusion Transformer (DiT) inference via sequence parallelism is critical
            for reducing latency in visual generation, but is severely hampered by workload
            imbalance when applied to models employing block-wise sparse attention. The
            imbalance stems from the inherent variation in sparsity across attention heads and
            the irregular distribution of dense blocks within the sparse mask, when sequence
            parallelism is applied along the head dimension (as in Ulysses) or the block
            dimension (as in Ring Attention). In this paper, we formalize a sparse imbalance
            ratio to quantify the imbalance, and propose db-SP, a sparsity-aware sequence
            parallelism technique that tackles the challenge. db-SP contains a dual-level
            partitioning approach that achieves near-perfect workload balance at both the head
            and block levels with negligible overhead. Furthermore, to handle the evolving
            sparsity patterns across denoising steps and layers, db-SP dynamically determines
            the parallel degrees for the head and block dimensions at runtime. Experimental
            results demonstrate that db-SP delivers an end-to-end speedup of 1.25x and an
            attention-specific speedup of 1.40x over state-of-the-art sequence parallel methods
            on average. Code is available at https://github.com/thu-nics/db-SP.
            """
        ),
    ),
    Work(
        title=(
            "Efficient and Adaptable Overlapping for Computation and Communication via"
            " Signaling and Reordering"
        ),
        year=2025,
        date="2025-04-28",
        type="preprint",
        arxiv_id="2504.19519",
        authors=(
            "Ke Hong [tsinghua, infinigence]",
            "Xiuhong Li [infinigence]",
            "Minxu Liu [infinigence]",
            "Qiuli Mao [infinigence]",
            "Tianqi Wu [tsinghua, infinigence]",
            "Zixiao Huang [tsinghua, infinigence]",
            "Lufang Chen [infinigence]",
            "Zhong Wang [infinigence]",
            "Yichong Zhang [tsinghua]",
            "Zhenhua Zhu [tsinghua]",
            "Guohao Dai [infinigence, sjtu]",
            "Yu Wang [tsinghua]",
        ),
        topics=("cs.DC",),
        cited_by_count=5,
        abstract=_text(
            r"""
            Generative models have achieved remarkable success across various applications,
            driving the demand for multi-GPU computing. Inter-GPU communication becomes a
            bottleneck in multi-GPU computing systems, particularly on consumer-grade GPUs. By
            exploiting concurrent hardware execution, overlapping computation and communication
            latency becomes an effective technique for mitigating the communication overhead. We
            identify that an efficient and adaptable overlapping design should satisfy (1)
            tile-wise overlapping to maximize the overlapping opportunity, (2) interference-free
            computation to maintain the original computational performance, and (3)
            communication agnosticism to reduce the development burden against varying
            communication primitives. Nevertheless, current designs fail to simultaneously
            optimize for all of those features. To address the issue, we propose FlashOverlap,
            which utilizes a novel signaling mechanism: when part of the output finishes, the
            computation kernel sends a signal to trigger the communication of that part, while
            continuing the computation of the remaining part (interference-free computation).
            Consequently, the communication of the finished part and the computation of the
            remaining part can be overlapped. On top of the signaling mechanism, FlashOverlap
            comprises two key components: (1) the determination of the signaling timing to boost
            the overlap efficiency (tile-wise overlapping), and (2) a pre-communication
            reordering to create the contiguous address for finished data, enabling
            communication by simply calling NCCL APIs (communication agnosticism), and a
            post-communication reordering to correct the data order. Experiments show that
            FlashOverlap achieves up to 1.65x speedup through overlap, outperforming existing
            works in most cases. Code is available at
            https://github.com/infinigence/FlashOverlap.
            """
        ),
    ),
    Work(
        title=(
            "LiteVAR: Compressing Visual Autoregressive Modelling with Efficient Attention"
            " and Quantization"
        ),
        year=2024,
        date="2024-11-26",
        type="preprint",
        arxiv_id="2411.17178",
        authors=(
            "Rui Xie",
            "Tianchen Zhao [tsinghua]",
            "Zhihang Yuan",
            "Rui Wan",
            "Wenxi Gao",
            "Zhenhua Zhu [tsinghua]",
            "Xuefei Ning [tsinghua]",
            "Yu Wang [tsinghua]",
        ),
        topics=("cs.CV",),
        cited_by_count=6,
        abstract=_text(
            r"""
            Visual Autoregressive (VAR) has emerged as a promising approach in image generation,
            offering competitive potential and performance comparable to diffusion-based models.
            However, current AR-based visual generation models require substantial computational
            resources, limiting their applicability on resource-constrained devices. To address
            this issue, we conducted analysis and identified significant redundancy in three
            dimensions of the VAR model: (1) the attention map, (2) the attention outputs when
            using classifier free guidance, and (3) the data precision. Correspondingly, we
            proposed efficient attention mechanism and low-bit quantization method to enhance
            the efficiency of VAR models while maintaining performance. With negligible
            performance lost (less than 0.056 FID increase), we could achieve 85.2% reduction in
            attention computation, 50% reduction in overall memory and 1.5x latency reduction.
            To ensure deployment feasibility, we developed efficient training-free compression
            techniques and analyze the deployment feasibility and efficiency gain of each
            technique.
            """
        ),
    ),
    Work(
        title=(
            "Reducing GPU Memory Fragmentation via Spatio-Temporal Planning for Efficient"
            " Large-Scale Model Training"
        ),
        year=2025,
        date="2025-07-22",
        type="preprint",
        arxiv_id="2507.16274",
        authors=(
            "Zixiao Huang [tsinghua, infinigence]",
            "Junhao Hu [infinigence]",
            "Hao Lin [tsinghua, infinigence]",
            "Chunyang Zhu [infinigence]",
            "Yueran Tang [infinigence]",
            "Quanlu Zhang [infinigence]",
            "Zhen Guo [infinigence]",
            "Zhenhua Li [tsinghua]",
            "Shengen Yan [tsinghua, infinigence]",
            "Zhenhua Zhu [tsinghua]",
            "Guohao Dai [sjtu, infinigence]",
            "Yu Wang [tsinghua]",
        ),
        topics=("cs.LG", "cs.AI", "cs.DC"),
        cited_by_count=2,
        abstract=_text(
            r"""
            The rapid scaling of large language models (LLMs) has significantly increased GPU
            memory pressure, which is further aggravated by training optimization techniques
            such as virtual pipeline and recomputation that disrupt tensor lifespans and
            introduce considerable memory fragmentation. Default GPU memory allocators of
            popular deep learning frameworks like PyTorch use online strategies without
            knowledge of tensor lifespans, which can waste up to 43\% of memory and cause
            out-of-memory errors, rendering optimization techniques ineffective or even
            unusable. To address this, we introduce STWeaver, a GPU memory allocator for deep
            learning frameworks that reduces fragmentation by exploiting the spatial and
            temporal regularity in memory allocation behaviors of training workloads. STWeaver
            introduces a novel paradigm that combines offline planning with online allocation.
            The offline planning leverages spatio-temporal regularities to generate a
            near-optimal allocation plan, while the online allocation handles complex and
            dynamic models such as Mixture-of-Experts (MoE). Built as a pluggable PyTorch
            allocator, STWeaver reduces fragmentation ratio on average by 79.2\% (up to 100\%)
            across both dense and sparse models, with negligible overhead. This enables more
            efficient, high-throughput training configurations and improves performance by up to
            32.5\%.
            """
        ),
    ),
    Work(
        title="Reducing Latency of LLM Search Agent via Speculation-based Algorithm-System Co-Design",
        year=2025,
        date="2025-11-25",
        type="preprint",
        arxiv_id="2511.20048",
        authors=(
            "Zixiao Huang",
            "Wen Zeng",
            "Tianyu Fu",
            "Tengxuan Liu",
            "Yizhou Sun",
            "Ke Hong",
            "Xinhao Yang",
            "Chengchun Liu",
            "Yan Li",
            "Quanlu Zhang",
            "Guohao Dai",
            "Zhenhua Zhu [tsinghua]",
            "Yu Wang [tsinghua]",
        ),
        topics=("cs.AI", "cs.LG"),
        cited_by_count=1,
        abstract=_text(
            r"""
            LLM-based search agents achieve strong performance but suffer from severe latency,
            as each step requires serialized LLM reasoning followed by action of tool execution.
            We revisit this bottleneck through the lens of speculation. While traditional
            predict-verify speculation paradigm can break serial execution, its benefit remains
            limited, as it retains the full original workload and adds extra inference overhead.
            We observe that early agent steps often involve simple evidence-gathering, where
            correct actions can often be predicted without full reasoning. Building on these
            observations, we present SPAgent, an algorithm-system co-design framework that
            expands the role of speculation in search agents to reduce latency. Algorithmically,
            SPAgent introduces a two-phase adaptive speculation mechanism that selectively omits
            verification when safe. System-wise, a two-level scheduler regulates speculative
            requests based on engine load to ensure speculation remains beneficial. We implement
            SPAgent in real-world systems. Across extensive experimental settings, SPAgent
            achieves up to $1.65\times$ end-to-end speedup while maintaining same or even
            achieving higher accuracy, enabling practical deployment of multi-step search
            agents.
            """
        ),
    ),
    Work(
        title="Exploring the Potential of Low-bit Training of Convolutional Neural Networks",
        year=2020,
        date="2020-06-04",
        type="preprint",
        arxiv_id="2006.02804",
        authors=(
            "Kai Zhong [tsinghua]",
            "Xuefei Ning [tsinghua]",
            "Guohao Dai [tsinghua]",
            "Zhenhua Zhu [tsinghua]",
            "Tianchen Zhao [tsinghua]",
            "Shulin Zeng [tsinghua]",
            "Yu Wang [tsinghua]",
            "Huazhong Yang [tsinghua]",
        ),
        topics=("cs.LG", "cs.CV"),
        cited_by_count=17,
        abstract=_text(
            r"""
            In this work, we propose a low-bit training framework for convolutional neural
            networks, which is built around a novel multi-level scaling (MLS) tensor format. Our
            framework focuses on reducing the energy consumption of convolution operations by
            quantizing all the convolution operands to low bit-width format. Specifically, we
            propose the MLS tensor format, in which the element-wise bit-width can be largely
            reduced. Then, we describe the dynamic quantization and the low-bit tensor
            convolution arithmetic to leverage the MLS tensor format efficiently. Experiments
            show that our framework achieves a superior trade-off between the accuracy and the
            bit-width than previous low-bit training frameworks. For training a variety of
            models on CIFAR-10, using 1-bit mantissa and 2-bit exponent is adequate to keep the
            accuracy loss within $1\%$. And on larger datasets like ImageNet, using 4-bit
            mantissa and 2-bit exponent is adequate to keep the accuracy loss within $1\%$.
            Through the energy consumption simulation of the computing units, we can estimate
            that training a variety of models with our framework could achieve
            $8.3\sim10.2\times$ and $1.9\sim2.3\times$ higher energy efficiency than training
            with full-precision and 8-bit floating-point arithmetic, respectively.
            """
        ),
    ),
    Work(
        title="FTT-NAS: Discovering Fault-Tolerant Convolutional Neural Architecture",
        year=2020,
        date="2020-03-20",
        type="preprint",
        arxiv_id="2003.10375",
        authors=(
            "Xuefei Ning [tsinghua]",
            "Guangjun Ge [tsinghua]",
            "Wenshuo Li [tsinghua]",
            "Zhenhua Zhu [tsinghua]",
            "Yin Zheng [tencent]",
            "Xiaoming Chen [ict]",
            "Zhen Gao",
            "Yu Wang [tsinghua]",
            "Huazhong Yang [tsinghua]",
        ),
        topics=("eess.SP", "cs.LG"),
        cited_by_count=22,
        abstract=_text(
            r"""
            With the fast evolvement of embedded deep-learning computing systems, applications
            powered by deep learning are moving from the cloud to the edge. When deploying
            neural networks (NNs) onto the devices under complex environments, there are various
            types of possible faults: soft errors caused by cosmic radiation and radioactive
            impurities, voltage instability, aging, temperature variations, and malicious
            attackers. Thus the safety risk of deploying NNs is now drawing much attention. In
            this paper, after the analysis of the possible faults in various types of NN
            accelerators, we formalize and implement various fault models from the algorithmic
            perspective. We propose Fault-Tolerant Neural Architecture Search (FT-NAS) to
            automatically discover convolutional neural network (CNN) architectures that are
            reliable to various faults in nowadays devices. Then we incorporate fault-tolerant
            training (FTT) in the search process to achieve better results, which is referred to
            as FTT-NAS. Experiments on CIFAR-10 show that the discovered architectures
            outperform other manually designed baseline architectures significantly, with
            comparable or fewer floating-point operations (FLOPs) and parameters. Specifically,
            with the same fault settings, F-FTT-Net discovered under the feature fault model
            achieves an accuracy of 86.2% (VS. 68.1% achieved by MobileNet-V2), and W-FTT-Net
            discovered under the weight fault model achieves an accuracy of 69.6% (VS. 60.8%
            achieved by ResNet-20). By inspecting the discovered architectures, we find that the
            operation primitives, the weight quantization range, the capacity of the model, and
            the connection pattern have influences on the fault resilience capability of NN
            models.
            """
        ),
    ),
)

# Seed 003: Zhuang Wang's homepage. Venue and year as listed ("SOSP '23" -> SOSP, 2023); the
# homepage gives no abstracts and no days. Institutions: his own from the homepage timeline,
# his advisor's (Rice) and his mentors' (AWS, ByteDance) from the homepage text.
WORKS_ZHUANG_WANG = (
    Work(
        title="Zen: Near-Optimal Communications for Sparse and Distributed DNN",
        year=2023,
        date="2023-09-23",
        type="preprint",
        arxiv_id="2309.13254",
        authors=(
            "Zhuang Wang [rice]",
            "Zhaozhuo Xu",
            "Anshumali Shrivastava [rice]",
            "T. S. Eugene Ng [rice]",
        ),
        topics=("cs.LG", "cs.DC"),
        cited_by_count=9,
    ),
    Work(
        title="GEMINI: Fast Failure Recovery in Distributed Training with In-Memory Checkpoints",
        year=2023,
        type="article",
        venue="sosp",
        authors=(
            "Zhuang Wang [rice, aws]",
            "Zhen Jia [aws]",
            "Shuai Zheng",
            "Zhen Zhang",
            "Xinwei Fu",
            "T. S. Eugene Ng [rice]",
            "Yida Wang [aws]",
        ),
        topics=("cs.DC", "cs.LG"),
        cited_by_count=48,
    ),
    Work(
        title=(
            "Cupcake: A Compression Scheduler for Scalable Communication-Efficient Distributed"
            " Training"
        ),
        year=2023,
        type="article",
        venue="mlsys",
        authors=(
            "Zhuang Wang [rice]",
            "Xinyu Crystal Wu",
            "Zhaozhuo Xu",
            "T. S. Eugene Ng [rice]",
        ),
        topics=("cs.DC", "cs.LG"),
        cited_by_count=7,
    ),
    Work(
        title=(
            "Espresso: Unleashing the Full Potential of Gradient Compression with Near-Optimal"
            " Usage Strategies"
        ),
        year=2023,
        type="article",
        venue="eurosys",
        authors=(
            "Zhuang Wang [rice]",
            "Haibin Lin [bytedance]",
            "Yibo Zhu [bytedance]",
            "T. S. Eugene Ng [rice]",
        ),
        topics=("cs.DC", "cs.LG"),
        cited_by_count=31,
    ),
    Work(
        title="DRAGONN: Distributed Randomized Approximate Gradients of Neural Networks",
        year=2022,
        type="article",
        venue="icml",
        authors=(
            "Zhuang Wang [rice]",
            "Zhaozhuo Xu",
            "Xinyu Crystal Wu",
            "Anshumali Shrivastava [rice]",
            "T. S. Eugene Ng [rice]",
        ),
        topics=("cs.LG", "cs.DC"),
        cited_by_count=14,
    ),
    Work(
        title=(
            "Shufflecast: An Optical, Data-rate Agnostic and Low-Power Multicast Architecture"
            " for Next-Generation Compute Clusters"
        ),
        year=2022,
        type="article",
        venue="ton",
        authors=(
            "Sushovan Das",
            "Afsaneh Rahbar",
            "Xinyu Crystal Wu",
            "Zhuang Wang [rice]",
            "Weitao Wang",
            "Ang Chen",
            "T. S. Eugene Ng [rice]",
        ),
        topics=("cs.NI",),
        cited_by_count=6,
    ),
    Work(
        title="DMXDAG: A Hybrid Abstraction for Emerging Applications",
        year=2021,
        type="article",
        venue="hotnets",
        authors=(
            "Weitao Wang",
            "Sushovan Das",
            "Xinyu Crystal Wu",
            "Zhuang Wang [rice]",
            "Ang Chen",
            "T. S. Eugene Ng [rice]",
        ),
        topics=("cs.NI", "cs.DC"),
        cited_by_count=5,
    ),
    Work(
        title="Efficient and Less Centralized Federated Learning",
        year=2021,
        type="article",
        venue="ecmlpkdd",
        authors=(
            "Li Chou",
            "Zichang Liu",
            "Zhuang Wang [rice]",
            "Anshumali Shrivastava [rice]",
        ),
        topics=("cs.LG", "cs.DC"),
        cited_by_count=11,
    ),
    Work(
        title="Intra-host Rate Control with Centralized Approach",
        year=2016,
        type="article",
        venue="cluster",
        authors=(
            "Zhuang Wang [ict]",
            "Ke Liu",
            "Yifan Shen",
            "Jack YB Lee",
            "Mingyu Chen",
            "Lixin Zhang",
        ),
        topics=("cs.NI",),
        cited_by_count=4,
    ),
    Work(
        title="A Novel Approach for All-to-All Routing in All-optical Hypersquare Torus Network",
        year=2016,
        type="article",
        venue="cf",
        authors=(
            "Zhuang Wang [ict]",
            "Ke Liu",
            "Long Li",
            "Weiyi Chen",
            "Mingyu Chen",
            "Lixin Zhang",
        ),
        topics=("cs.NI",),
        cited_by_count=2,
    ),
    Work(
        title="Adaptive Rate Control over Mobile Data Networks with Heuristic Rate Compensations",
        year=2016,
        type="article",
        venue="iwqos",
        authors=(
            "Ke Liu",
            "Zhuang Wang [ict]",
            "Jack Y. B. Lee",
            "Mingyu Chen",
            "Lixin Zhang",
        ),
        topics=("cs.NI",),
        cited_by_count=13,
    ),
)

# Seed 004: the CV of Zhongzhu Zhou (the one author on every paper of its publication list).
# Venue and year as the CV lists them; the CV gives no abstracts. Left out: the book (no year),
# the thesis (under review) and the "release soon" items. "Submitted to ICML 2026" papers are
# preprints. Coauthor institutions only where the CV or the paper states them.
WORKS_ZHONGZHU_ZHOU = (
    Work(
        title=(
            "JSIdentify: A Hybrid Framework for Detecting Plagiarism Among JavaScript Code in"
            " Online Mini Games"
        ),
        year=2020,
        type="article",
        venue="icse",
        authors=(
            "Qun Xia",
            "Zhongzhu Zhou [sysu]",
            "Zhihao Li",
            "Bin Xu",
            "Wei Zou",
            "Zishun Chen",
            "Huafeng Ma",
            "Gangqiang Liang",
            "Haochuan Lu",
            "Shiyu Guo",
            "Ting Xiong",
            "Yuetang Deng [tencent]",
            "Tao Xie [uiuc]",
        ),
        topics=("cs.SE",),
        cited_by_count=9,
    ),
    Work(
        title=(
            "Flash-LLM: Enabling Cost-Effective and Highly-Efficient Large Generative Model"
            " Inference with Unstructured Sparsity"
        ),
        year=2024,
        type="article",
        venue="vldb",
        authors=(
            "Haojun Xia",
            "Zhen Zheng",
            "Yuchao Li",
            "Donglin Zhuang",
            "Zhongzhu Zhou [usyd]",
            "Xiafei Qiu",
            "Yong Li",
            "Wei Lin",
            "Shuaiwen Leon Song",
        ),
        topics=("cs.DC", "cs.LG"),
        cited_by_count=74,
    ),
    Work(
        title="Imitate Optimal Policy: Prevail and Induce Action Collapse in Policy Gradient",
        year=2025,
        date="2025-09-02",
        type="preprint",
        arxiv_id="2509.02737",
        authors=(
            "Zhongzhu Zhou [usyd, together]",
            "Yibo Yang [kaust]",
            "Ziyang Chen [usyd]",
            "Fengxiang Bie [usyd]",
            "Haojun Xia [usyd]",
            "Xiaoxia Wu [together]",
            "Robert Wu [together]",
            "Ben Athiwaratkun [together]",
            "Bernard Ghanem [kaust]",
            "Shuaiwen Leon Song [usyd, together]",
        ),
        topics=("cs.LG",),
        cited_by_count=1,
    ),
    Work(
        title=(
            "CorDA: Context-Oriented Decomposition Adaptation of Large Language Models for"
            " Task-Aware Parameter-Efficient Fine-tuning"
        ),
        year=2024,
        type="article",
        venue="neurips",
        authors=(
            "Yibo Yang",
            "Xiaojie Li",
            "Zhongzhu Zhou [usyd]",
            "Shuaiwen Leon Song",
            "Jianlong Wu",
            "Liqiang Nie",
            "Bernard Ghanem",
        ),
        topics=("cs.LG", "cs.CL"),
        cited_by_count=38,
    ),
    Work(
        title=(
            "Quant-LLM: Accelerating the Serving of Large Language Models via FP6-Centric"
            " Algorithm-System Co-Design on Modern GPU"
        ),
        year=2024,
        type="article",
        venue="atc",
        authors=(
            "Haojun Xia",
            "Zhen Zheng",
            "Xiaoxia Wu",
            "Shiyang Chen",
            "Zhewei Yao",
            "Stephen Youn",
            "Arash Bakhtiari",
            "Michael Wyatt",
            "Donglin Zhuang",
            "Zhongzhu Zhou [usyd]",
            "Olatunji Ruwase",
            "Yuxiong He",
            "Shuaiwen Leon Song",
        ),
        topics=("cs.LG", "cs.AR"),
        cited_by_count=27,
    ),
    Work(
        title=(
            "Ladder-Residual: Parallelism-Aware Architecture for Accelerating Large Model"
            " Inference with Communication Overlapping"
        ),
        year=2025,
        type="article",
        venue="icml",
        authors=(
            "Muru Zhang",
            "Mayank Mishra",
            "Zhongzhu Zhou [together, usyd]",
            "William Brandon",
            "Jue WANG",
            "Yoon Kim",
            "Jonathan Ragan-Kelley",
            "Shuaiwen Leon Song [together]",
            "Ben Athiwaratkun [together]",
            "Tri Dao",
        ),
        topics=("cs.LG", "cs.DC"),
        cited_by_count=12,
    ),
    Work(
        title="Understanding and Steering the Cognitive Behaviors of Reasoning Models at Test-Time",
        year=2025,
        date="2025-12-31",
        type="preprint",
        arxiv_id="2512.24574",
        authors=(
            "Zhenyu Zhang",
            "Xiaoxia Wu [together]",
            "Zhongzhu Zhou [together, usyd]",
            "Qingyang Wu [together]",
            "Yineng Zhang [together]",
            "Pragaash Ponnusamy [together]",
            "Harikaran Subbaraj [together]",
            "Jue WANG [together]",
            "Shuaiwen Leon Song [together]",
            "Ben Athiwaratkun [together]",
        ),
        topics=("cs.CL", "cs.AI", "cs.LG"),
        cited_by_count=3,
    ),
    Work(
        title=(
            "CARE: Covariance-Aware and Rank-Enhanced Decomposition for Enabling Multi-Head"
            " Latent Attention"
        ),
        year=2026,
        type="article",
        venue="iclr",
        authors=(
            "Zhongzhu Zhou [together, usyd]",
            "Fengxiang Bie",
            "Ziyang Chen",
            "Zhenyu Zhang",
            "Yibo Yang",
            "Junxiong Wang",
            "Ben Athiwaratkun [together]",
            "Xiaoxia Wu [together]",
            "Shuaiwen Leon Song [together]",
        ),
        topics=("cs.LG", "cs.CL"),
        cited_by_count=2,
    ),
    Work(
        title="KITTY: ACCURATE AND EFFICIENT 2-BIT KV CACHE QUANTIZATION CHANNEL-WISE PRECISION BOOST",
        year=2026,
        type="article",
        venue="mlsys",
        authors=(
            "Haojun Xia",
            "Xiaoxia Wu [together]",
            "Jisen Li",
            "Robert Wu",
            "Junxiong Wang",
            "Jue Wang",
            "Chenxi Li",
            "Aman Singhal",
            "Alay Dilipbhai Shah",
            "Alpay Ariyak",
            "Donglin Zhuang",
            "Zhongzhu Zhou [together, usyd]",
            "Ben Athiwaratkun [together]",
            "Zhen Zheng",
            "Shuaiwen Leon Song [together]",
        ),
        topics=("cs.LG",),
        cited_by_count=1,
    ),
    Work(
        title="When RL Meets Adaptive Speculative Training: A Unified Training-Serving System",
        year=2026,
        type="preprint",
        authors=(
            "Junxiong Wang",
            "Fengxiang Bie",
            "Jisen Li",
            "Zhongzhu Zhou [together, usyd]",
            "Zelei Shao",
            "Yubo Wang",
            "Yinghui Liu",
            "Qingyang Wu",
            "Avner May",
            "Sri Yanamandra",
            "Yineng Zhang",
            "Ce Zhang",
            "Tri Dao",
            "Percy Liang",
            "Ben Athiwaratkun [together]",
            "Shuaiwen Leon Song [together]",
            "Chenfeng Xu",
            "Xiaoxia Wu [together]",
        ),
        topics=("cs.LG", "cs.DC"),
        cited_by_count=0,
    ),
    Work(
        title="CoderForge-Preview: SOTA open dataset for training efficient coding agents",
        year=2026,
        type="dataset",
        landing_page_url="https://www.together.ai/blog/coderforge-preview",
        authors=(
            "Alpay Ariyak",
            "Junda Zhang",
            "Junxiong Wang",
            "Shang Zhu",
            "Federico Bianchi",
            "Sanjana Srivastava",
            "Ashwinee Panda",
            "Siddhant Bharti",
            "Chenfeng Xu",
            "John Heo",
            "Xiaoxia Shirley Wu",
            "James Zou",
            "Percy Liang",
            "Leon Song",
            "Ce Zhang",
            "Ben Athiwaratkun [together]",
            "Zhongzhu Zhou [together]",
            "Qingyang Wu",
        ),
        topics=("cs.SE", "cs.LG"),
        cited_by_count=0,
    ),
    Work(
        title="Binary Neural Network for Automated Visual Surface Defect Detection",
        year=2021,
        date="2021-10-16",
        type="article",
        venue="sensors",
        doi="https://doi.org/10.3390/s21206868",
        landing_page_url="https://www.mdpi.com/1424-8220/21/20/6868",
        authors=(
            "Wenzhe Liu",
            "Jiehua Zhang",
            "Zhou Su",
            "Zhongzhu Zhou [sysu]",
            "Li Liu",
        ),
        topics=("cs.CV",),
        cited_by_count=16,
    ),
    Work(
        title="RenAIssance: A Survey into AI Text-to-Image Generation in the Era of Large Model",
        year=2023,
        type="review",
        venue="tpami",
        arxiv_id="2309.00810",
        authors=(
            "Fengxiang Bie",
            "Yibo Yang",
            "Zhongzhu Zhou [usyd]",
            "Adam Ghanem",
            "Minjia Zhang",
            "Zhewei Yao",
            "Xiaoxia Wu",
            "Connor Holmes",
            "Pareesa Golnari",
            "David A. Clifton",
            "Yuxiong He",
            "Dacheng Tao",
            "Shuaiwen Leon Song",
        ),
        topics=("cs.CV",),
        cited_by_count=19,
    ),
    Work(
        title=(
            "DeepSpeed-Chat: Easy, Fast and Affordable RLHF Training of ChatGPT-like Models at"
            " All Scales"
        ),
        year=2023,
        date="2023-08-02",
        type="preprint",
        arxiv_id="2308.01320",
        authors=(
            "Zhewei Yao [microsoft]",
            "Reza Yazdani Aminabadi",
            "Olatunji Ruwase",
            "Samyam Rajbhandari",
            "Xiaoxia Wu [microsoft]",
            "Ammar Ahmad Awan",
            "Jeff Rasley",
            "Minjia Zhang",
            "Conglong Li",
            "Connor Holmes",
            "Zhongzhu Zhou [usyd]",
            "Michael Wyatt",
            "Molly Smith",
            "Lev Kurilenko",
            "Heyang Qin",
            "Masahiro Tanaka",
            "Shuai Che",
            "Shuaiwen Leon Song [microsoft]",
            "Yuxiong He",
        ),
        topics=("cs.LG", "cs.AI", "cs.CL"),
        cited_by_count=96,
    ),
    # The CV lists this byline up to Zhongzhu Zhou and "et al."; it is kept that long.
    Work(
        title=(
            "DeepSpeed4Science Initiative: Enabling Large-Scale Scientific Discovery through"
            " Sophisticated AI System Technologies"
        ),
        year=2023,
        type="preprint",
        arxiv_id="2310.04610",
        authors=(
            "Shuaiwen Leon Song [microsoft]",
            "Bonnie Krufft [microsoft]",
            "Minjia Zhang [microsoft]",
            "Conglong Li [microsoft]",
            "Shiyang Chen",
            "Chengming Zhang [microsoft]",
            "Masahiro Tanaka [microsoft]",
            "Xiaoxia Wu [microsoft]",
            "Jeff Rasley [microsoft]",
            "Ammar Ahmad Awan [microsoft]",
            "Connor Holmes [microsoft]",
            "Martin Cai [microsoft]",
            "Adam Ghanem [usyd]",
            "Zhongzhu Zhou [usyd]",
        ),
        topics=("cs.AI", "cs.DC"),
        cited_by_count=24,
    ),
    Work(
        title="KUBERNETES 用户态应用中基于虚拟文件系统的小文件存储优化系统",
        year=2020,
        type="patent",
        language="zh",
        authors=(
            "Liang Du",
            "Guixin Guo",
            "Kangyou Zhong",
            "Yunfei Du",
            "Yutong Lu [sysu]",
            "Zhongzhu Zhou [sysu]",
        ),
        topics=("cs.DC",),
        cited_by_count=0,
    ),
)

WORKS = WORKS_ZHIZHEN_ZHONG + WORKS_ZHENHUA_ZHU + WORKS_ZHUANG_WANG + WORKS_ZHONGZHU_ZHOU


# --------------------------------------------------------------------------------------------
# Building the records.
# --------------------------------------------------------------------------------------------

AUTHOR_SPEC = re.compile(r"^(?P<name>[^\[\]]+?)(?:\s*\[(?P<institutions>[^\[\]]+)\])?$")


@dataclass(frozen=True)
class Byline:
    raw_name: str
    display_name: str
    institution_keys: tuple[str, ...]


def _parse_author(spec: str) -> Byline:
    match = AUTHOR_SPEC.match(spec)
    if match is None:
        raise ValueError(f"unreadable author entry: {spec!r}")
    raw_name = match["name"].strip()
    keys = tuple(key.strip() for key in (match["institutions"] or "").split(",") if key.strip())
    return Byline(raw_name, NAME_ALIASES.get(raw_name, raw_name), keys)


def _numbered(prefix: str, number: int) -> str:
    return f"{OPENALEX}{prefix}{9900000000 + number}"


def _inverted_index(text: str) -> dict[str, list[int]]:
    # OpenAlex splits on single spaces and keeps punctuation on the tokens.
    index: dict[str, list[int]] = defaultdict(list)
    for position, token in enumerate(text.split(" ")):
        index[token].append(position)
    return dict(index)


def _rebuild_abstract(index: dict[str, list[int]]) -> str:
    tokens: dict[int, str] = {}
    for token, positions in index.items():
        for position in positions:
            tokens[position] = token
    return " ".join(tokens[position] for position in range(len(tokens)))


def _citations_by_year(total: int, first_year: int) -> dict[int, int]:
    """Spread `total` citations over first_year..SNAPSHOT_YEAR, growing linearly."""
    years = list(range(first_year, SNAPSHOT_YEAR + 1))
    weights = [Fraction(index + 1) for index in range(len(years))]
    exact = [total * weight / sum(weights) for weight in weights]
    counts = [int(value) for value in exact]
    by_largest_remainder = sorted(
        range(len(years)), key=lambda index: (-(exact[index] - counts[index]), -years[index])
    )
    for index in by_largest_remainder[: total - sum(counts)]:
        counts[index] += 1
    return {year: count for year, count in zip(years, counts, strict=True) if count}


def _h_index(citation_counts: list[int]) -> int:
    ranked = sorted(citation_counts, reverse=True)
    return sum(1 for rank, count in enumerate(ranked, start=1) if count >= rank)


class SnapshotBuilder:
    def __init__(self) -> None:
        self.institutions = {inst.key: inst for inst in INSTITUTIONS}
        self.institution_ids = {
            inst.key: _numbered("I", number) for number, inst in enumerate(INSTITUTIONS, start=1)
        }
        self.sources = {source.key: source for source in SOURCES}
        self.source_ids: dict[str, str] = {}
        synthetic_number = 0
        for source in SOURCES:
            if source.openalex_id:
                self.source_ids[source.key] = source.openalex_id
            else:
                synthetic_number += 1
                self.source_ids[source.key] = _numbered("S", synthetic_number)
        self.people = {person.display_name: person for person in PEOPLE}
        self.author_ids = {
            person.display_name: _numbered("A", number)
            for number, person in enumerate(PEOPLE, start=1)
        }
        self.bylines = [tuple(_parse_author(spec) for spec in work.authors) for work in WORKS]
        for byline in self.bylines:
            for author in byline:
                if author.display_name not in self.author_ids:
                    self.author_ids[author.display_name] = _numbered("A", len(self.author_ids) + 1)

    # Dehydrated objects, as OpenAlex nests them inside other records.

    def institution_stub(self, key: str) -> dict[str, Any]:
        inst = self.institutions[key]
        institution_id = self.institution_ids[key]
        return {
            "id": institution_id,
            "display_name": inst.display_name,
            "ror": inst.ror,
            "country_code": inst.country_code,
            "type": inst.type,
            "lineage": [institution_id],
        }

    def source_stub(self, key: str) -> dict[str, Any]:
        source = self.sources[key]
        return {
            "id": self.source_ids[key],
            "display_name": source.display_name,
            "issn_l": source.issn_l,
            "issn": [source.issn_l] if source.issn_l else None,
            "type": source.type,
        }

    @staticmethod
    def topic(category: str, score: float) -> dict[str, Any]:
        name, subfield_id = CATEGORIES[category]
        subfield_name, field_id = SUBFIELDS[subfield_id]
        field_name, domain_id = FIELDS[field_id]
        return {
            "id": f"arxiv:{category}",
            "display_name": name,
            "score": score,
            "subfield": {"id": f"{OPENALEX}subfields/{subfield_id}", "display_name": subfield_name},
            "field": {"id": f"{OPENALEX}fields/{field_id}", "display_name": field_name},
            "domain": {"id": f"{OPENALEX}domains/{domain_id}", "display_name": DOMAINS[domain_id]},
        }

    # Entities.

    def locations(self, work: Work) -> list[dict[str, Any]]:
        locations = []
        if work.venue:
            is_oa = work.landing_page_url is not None
            locations.append(
                {
                    "source": self.source_stub(work.venue),
                    "landing_page_url": work.landing_page_url,
                    "pdf_url": None,
                    "is_oa": is_oa,
                    # Every MDPI article is published under CC BY.
                    "license": "cc-by" if work.venue == "sensors" else None,
                    "version": "publishedVersion",
                    "is_accepted": True,
                    "is_published": True,
                }
            )
        if work.arxiv_id:
            locations.append(
                {
                    "source": self.source_stub("arxiv"),
                    "landing_page_url": f"https://arxiv.org/abs/{work.arxiv_id}",
                    "pdf_url": f"https://arxiv.org/pdf/{work.arxiv_id}",
                    "is_oa": True,
                    "license": None,
                    "version": "submittedVersion",
                    "is_accepted": False,
                    "is_published": False,
                }
            )
        if not locations and work.landing_page_url:
            locations.append(
                {
                    "source": None,
                    "landing_page_url": work.landing_page_url,
                    "pdf_url": None,
                    "is_oa": True,
                    "license": None,
                    "version": "publishedVersion",
                    "is_accepted": True,
                    "is_published": True,
                }
            )
        return locations

    def work_record(self, number: int, work: Work, byline: tuple[Byline, ...]) -> dict[str, Any]:
        work_id = _numbered("W", number)
        doi = work.doi
        if doi is None and work.arxiv_id and not work.venue:
            # arXiv registers 10.48550/arXiv.<id> for every paper; OpenAlex lowercases DOIs.
            doi = f"https://doi.org/10.48550/arxiv.{work.arxiv_id}"
        ids: dict[str, str] = {"openalex": work_id}
        if doi:
            ids["doi"] = doi
        if work.arxiv_id:
            ids["arxiv"] = work.arxiv_id
        locations = self.locations(work)
        best_oa = next((location for location in locations if location["is_oa"]), None)
        oa_status = "closed"
        if best_oa is not None:
            oa_status = "green" if best_oa["version"] == "submittedVersion" else "gold"
        authorships = []
        for position, author in enumerate(byline):
            if position == 0:
                author_position = "first"
            elif position == len(byline) - 1:
                author_position = "last"
            else:
                author_position = "middle"
            institutions = [self.institution_stub(key) for key in author.institution_keys]
            authorships.append(
                {
                    "author_position": author_position,
                    "author": {
                        "id": self.author_ids[author.display_name],
                        "display_name": author.display_name,
                        "orcid": None,
                    },
                    "institutions": institutions,
                    "countries": sorted({inst["country_code"] for inst in institutions}),
                    "raw_author_name": author.raw_name,
                    "is_corresponding": False,
                    "raw_affiliation_strings": [inst["display_name"] for inst in institutions],
                }
            )
        topics = [
            self.topic(category, PRIMARY_TOPIC_SCORE if rank == 0 else SECONDARY_TOPIC_SCORE)
            for rank, category in enumerate(work.topics)
        ]
        citations = _citations_by_year(work.cited_by_count, work.year)
        return {
            "id": work_id,
            "doi": doi,
            "ids": ids,
            "title": work.title,
            "display_name": work.title,
            "publication_year": work.year,
            "publication_date": work.date,
            "type": work.type,
            "language": work.language,
            "primary_location": locations[0] if locations else None,
            "locations": locations,
            "locations_count": len(locations),
            "best_oa_location": best_oa,
            "open_access": {
                "is_oa": best_oa is not None,
                "oa_status": oa_status,
                "oa_url": best_oa["landing_page_url"] if best_oa else None,
            },
            "authorships": authorships,
            "primary_topic": topics[0] if topics else None,
            "topics": topics,
            "cited_by_count": work.cited_by_count,
            "counts_by_year": [
                {"year": year, "cited_by_count": count}
                for year, count in sorted(citations.items(), reverse=True)
            ],
            "abstract_inverted_index": _inverted_index(work.abstract) if work.abstract else None,
            "is_retracted": False,
            "is_paratext": False,
            "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
            "created_date": SNAPSHOT_DATE,
        }

    def author_records(self, works: list[dict[str, Any]]) -> list[dict[str, Any]]:
        works_by_author: dict[str, list[dict[str, Any]]] = defaultdict(list)
        raw_names: dict[str, set[str]] = defaultdict(set)
        byline_years: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        latest_byline: dict[str, tuple[int, list[str]]] = {}
        key_by_institution_id = {value: key for key, value in self.institution_ids.items()}
        for work in works:
            for authorship in work["authorships"]:
                name = authorship["author"]["display_name"]
                works_by_author[name].append(work)
                raw_names[name].add(authorship["raw_author_name"])
                keys = [key_by_institution_id[inst["id"]] for inst in authorship["institutions"]]
                for key in keys:
                    byline_years[name][key].add(work["publication_year"])
                if keys and work["publication_year"] >= latest_byline.get(name, (0, []))[0]:
                    latest_byline[name] = (work["publication_year"], keys)

        records = []
        for name, author_id in self.author_ids.items():
            person = self.people.get(name)
            alternatives = set(raw_names[name]) - {name}
            if person:
                alternatives |= set(person.alternatives)
            if person and person.no_affiliations:
                years_by_institution: dict[str, set[int]] = {}
                last_known: list[str] = []
            elif person and person.timeline:
                years_by_institution = defaultdict(set)
                for key, first, last in person.timeline:
                    years_by_institution[key] |= set(range(first, last + 1))
                last_known = list(person.last_known or ())
            else:
                years_by_institution = byline_years[name]
                last_known = list(latest_byline.get(name, (0, []))[1])
            affiliations = sorted(
                (
                    {
                        "institution": self.institution_stub(key),
                        "years": sorted(years, reverse=True),
                    }
                    for key, years in years_by_institution.items()
                ),
                key=lambda item: (-item["years"][0], -item["years"][-1], item["institution"]["id"]),
            )
            own_works = works_by_author[name]
            citations = [work["cited_by_count"] for work in own_works]
            by_year: dict[int, dict[str, int]] = defaultdict(
                lambda: {"works_count": 0, "cited_by_count": 0}
            )
            for work in own_works:
                by_year[work["publication_year"]]["works_count"] += 1
                for entry in work["counts_by_year"]:
                    by_year[entry["year"]]["cited_by_count"] += entry["cited_by_count"]
            records.append(
                {
                    "id": author_id,
                    "display_name": name,
                    "display_name_alternatives": sorted(alternatives),
                    "orcid": None,
                    "ids": {"openalex": author_id},
                    "works_count": len(own_works),
                    "cited_by_count": sum(citations),
                    "summary_stats": {
                        "h_index": _h_index(citations),
                        "i10_index": sum(1 for count in citations if count >= 10),
                    },
                    "counts_by_year": [
                        {"year": year, **counts}
                        for year, counts in sorted(by_year.items(), reverse=True)
                    ],
                    "last_known_institutions": [self.institution_stub(key) for key in last_known],
                    "affiliations": affiliations,
                    "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
                    "created_date": SNAPSHOT_DATE,
                }
            )
        return records

    def institution_records(self, works: list[dict[str, Any]]) -> list[dict[str, Any]]:
        work_ids: dict[str, set[str]] = defaultdict(set)
        citations: dict[str, int] = {}
        for work in works:
            citations[work["id"]] = work["cited_by_count"]
            for authorship in work["authorships"]:
                for inst in authorship["institutions"]:
                    work_ids[inst["id"]].add(work["id"])
        records = []
        for inst in INSTITUTIONS:
            institution_id = self.institution_ids[inst.key]
            ids = {"openalex": institution_id}
            if inst.ror:
                ids["ror"] = inst.ror
            records.append(
                {
                    "id": institution_id,
                    "ror": inst.ror,
                    "ids": ids,
                    "display_name": inst.display_name,
                    "display_name_alternatives": list(inst.alternatives),
                    "country_code": inst.country_code,
                    "type": inst.type,
                    "homepage_url": inst.homepage_url,
                    "lineage": [institution_id],
                    "works_count": len(work_ids[institution_id]),
                    "cited_by_count": sum(
                        citations[work_id] for work_id in work_ids[institution_id]
                    ),
                    "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
                    "created_date": SNAPSHOT_DATE,
                }
            )
        return records

    def source_records(self, works: list[dict[str, Any]]) -> list[dict[str, Any]]:
        work_ids: dict[str, set[str]] = defaultdict(set)
        citations: dict[str, int] = {}
        for work in works:
            citations[work["id"]] = work["cited_by_count"]
            for location in work["locations"]:
                if location["source"]:
                    work_ids[location["source"]["id"]].add(work["id"])
        records = []
        for source in SOURCES:
            source_id = self.source_ids[source.key]
            ids: dict[str, Any] = {"openalex": source_id}
            if source.issn_l:
                ids["issn_l"] = source.issn_l
                ids["issn"] = [source.issn_l]
            records.append(
                {
                    "id": source_id,
                    "ids": ids,
                    "display_name": source.display_name,
                    "abbreviated_title": source.abbreviated_title,
                    "alternate_titles": list(source.alternate_titles),
                    "issn_l": source.issn_l,
                    "issn": [source.issn_l] if source.issn_l else None,
                    "type": source.type,
                    "homepage_url": source.homepage_url,
                    "works_count": len(work_ids[source_id]),
                    "cited_by_count": sum(citations[work_id] for work_id in work_ids[source_id]),
                    "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
                    "created_date": SNAPSHOT_DATE,
                }
            )
        return records

    def build(self) -> dict[str, list[dict[str, Any]]]:
        works = [
            self.work_record(number, work, byline)
            for number, (work, byline) in enumerate(zip(WORKS, self.bylines, strict=True), start=1)
        ]
        return {
            "works": works,
            "authors": self.author_records(works),
            "institutions": self.institution_records(works),
            "sources": self.source_records(works),
        }


# --------------------------------------------------------------------------------------------
# Checks run before anything is written: a failed check leaves the old snapshot in place.
# --------------------------------------------------------------------------------------------


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"demo snapshot check failed: {message}")


def check(records: dict[str, list[dict[str, Any]]]) -> None:
    ids_by_entity = {}
    for entity, entity_records in records.items():
        ids = [record["id"] for record in entity_records]
        _require(len(ids) == len(set(ids)), f"duplicate ids in {entity}")
        ids_by_entity[entity] = set(ids)

    for work, table_row in zip(records["works"], WORKS, strict=True):
        for location in work["locations"]:
            if location["source"]:
                _require(location["source"]["id"] in ids_by_entity["sources"], work["id"])
        for authorship in work["authorships"]:
            _require(authorship["author"]["id"] in ids_by_entity["authors"], work["id"])
            for inst in authorship["institutions"]:
                _require(inst["id"] in ids_by_entity["institutions"], work["id"])
        for topic in work["topics"]:
            _require(topic["id"].removeprefix("arxiv:") in CATEGORIES, topic["id"])
        if table_row.abstract is not None:
            rebuilt = _rebuild_abstract(work["abstract_inverted_index"])
            _require(rebuilt == table_row.abstract, f"abstract round trip of {work['id']}")
        yearly = sum(entry["cited_by_count"] for entry in work["counts_by_year"])
        _require(yearly == work["cited_by_count"], f"counts_by_year of {work['id']}")
    for author in records["authors"]:
        for inst in author["last_known_institutions"] + [
            affiliation["institution"] for affiliation in author["affiliations"]
        ]:
            _require(inst["id"] in ids_by_entity["institutions"], author["id"])

    def works_of(name: str) -> list[dict[str, Any]]:
        return [
            work
            for work in records["works"]
            if any(a["author"]["display_name"] == name for a in work["authorships"])
        ]

    # Seed 000's profile: 2 works, 3 topics, 4 close collaborators, no affiliation.
    zhong = works_of("Zhizhen Zhong")
    coauthors = {
        a["author"]["id"]
        for work in zhong
        for a in work["authorships"]
        if a["author"]["display_name"] != "Zhizhen Zhong"
    }
    topics = {topic["id"] for work in zhong for topic in work["topics"]}
    _require(len(zhong) == 2, "Zhizhen Zhong has exactly 2 works")
    _require(len(coauthors) == 4, "Zhizhen Zhong has exactly 4 coauthors")
    _require(len(topics) == 3, "Zhizhen Zhong's works carry exactly 3 topics")
    # Seed 002's profile: 8 papers, 63 citations.
    zhu = works_of("Zhenhua Zhu")
    _require(len(zhu) == 8, "Zhenhua Zhu has 8 works")
    _require(sum(work["cited_by_count"] for work in zhu) == 63, "Zhenhua Zhu has 63 citations")

    # No personal contact data: no e-mail addresses anywhere in the output.
    _require(b"@" not in orjson.dumps(records), "an '@' slipped into the snapshot")


def write(records: dict[str, list[dict[str, Any]]]) -> None:
    if OUTPUT_DIR.exists():
        shutil.rmtree(OUTPUT_DIR)
    for entity in ENTITIES:
        folder = OUTPUT_DIR / entity / f"updated_date={SNAPSHOT_DATE}"
        folder.mkdir(parents=True)
        lines = (
            orjson.dumps(record, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)
            for record in records[entity]
        )
        (folder / "part_000").write_bytes(b"".join(lines))


def main() -> None:
    records = SnapshotBuilder().build()
    check(records)
    write(records)


if __name__ == "__main__":
    main()
