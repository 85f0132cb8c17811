"""The records specnet-bench writes, as dataclasses: one FlowRecord per flow
and case in results.json (docs/results-format.md; results.schema.json
validates the file, and a host test holds these fields to it), built from a
FlowResult (what the flow's iperf3 report gave) and the figures of its path.

The summary, the targets and the plots read results.json back as plain
dicts (a run resumed from the file and a fresh one read the same), so a
record becomes JSON once, through FlowRecord.to_json()."""
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Optional


@dataclass
class FlowResult:
    """One flow's iperf3 --json report: goodput, retransmissions, bytes
    sent, mean RTT, the sender's [t s, cwnd, RTT ms, bit/s] per second
    (series) and the receiver's [t s, bit/s] per second (rcv_series, from
    --get-server-output); or, for a failed flow, only the error (a failed
    flow counts as 0 goodput)."""
    goodput_bps: Optional[float] = None
    retransmits: Optional[int] = None
    bytes_sent: Optional[int] = None
    mean_rtt_ms: Optional[float] = None
    series: Optional[list] = None
    rcv_series: Optional[list] = None
    error: Optional[str] = None

    @property
    def failed(self):
        return record_failed(vars(self))


@dataclass(kw_only=True)
class FlowRecord(FlowResult):
    """One flow of one case: what was run (scenario .. key), the flow's
    result (the FlowResult fields), the path's figures after the run (loss
    realized on the lossy hop and the ceiling from it, the bottleneck
    queue, the guest CPU) and the sender's counters of its congestion
    control."""
    # the case and the flow
    scenario: str
    opts: dict
    param: str
    value: float
    cc: str
    flow_cc: str
    flow: int
    rep: int
    seconds: int
    key: str
    # the path, after the run
    per_nominal: float
    per_realized: Optional[float]       # None: the counters gave none
    ceiling_nominal_bps: float
    ceiling_bps: float
    lossy_pkts: Optional[int]
    lossy_discarded: Optional[int]
    rtt_ms: float
    queue: dict
    csum_errors: int
    guest_cpu_busy: float
    counters: dict = field(default_factory=dict)
    # optional path figures
    lossy_errors: Optional[int] = None
    lossy_note: Optional[str] = None
    queue_series: Optional[list] = None
    avg_queue_pkts: Optional[float] = None
    avg_queue_delay_ms: Optional[float] = None
    p95_queue_delay_ms: Optional[float] = None
    background_offered_bps: Optional[float] = None
    background_sent_bps: Optional[float] = None
    background_error: Optional[str] = None
    cpu_saturated: Optional[bool] = None
    tcp_limited: Optional[dict] = None  # the sender's tcp_info chronos (ss_limits)
    # per flow, with its case
    tp_capacity_kbps: Optional[int] = None
    start_s: Optional[float] = None     # s after the first flow of its path began
    jain: Optional[float] = None
    share: Optional[float] = None

    def set_result(self, result):
        """Take @result's (a FlowResult's) fields."""
        for f in fields(FlowResult):
            setattr(self, f.name, getattr(result, f.name))

    def to_json(self):
        """The record as results.json holds it: the required fields always,
        the others when set."""
        req = set(REQUIRED)
        return {k: v for k, v in asdict(self).items() if k in req or v is not None}


def record_failed(r):
    """A failed flow in a record read back from results.json (a dict): an
    error, or no goodput. It counts as 0 goodput in every figure."""
    return r.get("error") is not None or r.get("goodput_bps") is None


# the fields without a default, and counters: always in the JSON record
REQUIRED = [f.name for f in fields(FlowRecord)
            if f.default is MISSING and (f.default_factory is MISSING or f.name == "counters")]
