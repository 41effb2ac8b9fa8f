//! The analysis of one file, or of a pool of files, computed once with the noise it
//! measured: its bands, paced bands, the decisions for its room, the bands left open, its per-cell
//! figures and the crate versions. Every output renders from it; none calls a ranking, noise
//! or decision function of its own. The sweep's control loop reads the lighter [`Standing`] of
//! the rows measured so far, once per pass, and the types re-exported here.

use std::collections::BTreeSet;

use super::across::Acrosses;
pub use super::band::{Band, Groups, TaskBand};
pub use super::cells::FEWEST_SAMPLES;
use super::cells::{self, CellsFile};
pub use super::decide::Needed;
use super::decide::{self, Open};
use super::decision::{self, Decision, Weighing};
use super::designs::{self, Designs};
use super::figures::Table;
pub use super::host::HostNoise;
pub use super::load::{CellKey, CellSamples, PacedSample, ResultsFile};
use super::metadata::Metadata;
use super::noise::FileNoise;
pub use super::noise::Metric;
pub use super::paced::PacedEntry;
use super::paced::{self, PacedBand};
use super::recommend::{self, Recommendation};
pub use super::recommend::{Entry, Ranking};
use super::unkept::{self, Shape, Unkept};
use super::versions::{self, Versions};
use crate::run::measure::RuntimeKind;
use crate::stats::verdict::Verdict;

/// Everything the outputs say of a file.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The throughput answer: per group and band of task counts, the rankings.
    pub bands: Vec<Recommendation>,
    /// Where the machine and the capacity matter: the bands found on several of either.
    pub across: Acrosses,
    /// The answer for the paced cells; empty without any.
    pub paced: Vec<PacedBand>,
    /// The decisions for the room the file answers for (`decision::default_room`); empty
    /// without paced cells.
    pub decisions: Vec<Decision>,
    /// The figures the decisions weighed, in order (`--weigh`).
    pub weighing: Weighing,
    /// The bands whose speed verdict stayed open, and what would likely decide each.
    pub open: Vec<Open>,
    /// The per-cell figures.
    pub cells: CellsFile,
    /// Which design: merged-recv against cloned-send, band by band; empty when the file measured
    /// one design.
    pub designs: Vec<Designs>,
    /// The crate versions the answer was measured with.
    pub versions: Versions,
    /// Every cell was paced: ns/message restates the schedule and is not ranked.
    pub only_paced: bool,
    /// How many runs the file pools (1 for one).
    pub runs: usize,
    /// The channels the user follows (`--keep`, from the run's JSON, or `summary --keep`): each
    /// table gives each one's verdict against the band's pick.
    pub keep: Vec<String>,
    /// Each multi-thread worker count above its machine's cores (the run's JSON), with those
    /// cores: figures of an oversubscribed runtime. Empty when every count fits or the cores
    /// are unknown.
    pub oversubscribed: Vec<(u64, usize)>,
    /// The messages per sample of the flat-out samples at the default setting, each count once,
    /// in order (`--quick` and `--messages` move other counts than the default).
    pub messages: Vec<u64>,
    /// How noisy the host was, as the run measured it.
    pub host: HostNoise,
    /// The requests the file's cells did not keep as asked (merged-recv at its floor of slots,
    /// a batch above the slots), with what they measured instead.
    pub unkept: Vec<Unkept>,
}

impl Analysis {
    /// The analysis of `file`, read from the CSV named `csv` (as the cells name it), with the
    /// run's JSON `metadata` when there is one, its room decided on the figures the run weighed.
    pub fn of(csv: &str, file: &ResultsFile, metadata: Option<&Metadata>) -> Analysis {
        let weighing = Weighing::of_run(metadata.and_then(|metadata| metadata.weigh.as_ref()), None);
        Analysis::weighed(csv, file, metadata, &weighing)
    }

    /// The analysis of `file`, as [`Analysis::of`], its room decided on the figures of `weighing`.
    pub fn weighed(csv: &str, file: &ResultsFile, metadata: Option<&Metadata>, weighing: &Weighing) -> Analysis {
        let (messages, oversubscribed) = (messages(file), oversubscribed(file, metadata.map_or(0, |m| m.cores)));
        let unkept = unkept(file);
        let (noise, table) = (FileNoise::of(file), Table::of(file));
        let groups = Groups::of(file, &table);
        let bands = recommend::recommend(&groups.all, &noise);
        Analysis {
            paced: paced::answer(&groups.paced, &noise),
            decisions: decision::default_room(file)
                .map_or(Vec::new(), |room| decision::decide((file, &table), &noise, room, weighing)),
            weighing: weighing.clone(),
            open: decide::open_bands(file, &noise, &bands),
            cells: cells::cells(csv, (file, &table), &groups.all, &bands),
            designs: designs::designs(&groups.all, &noise),
            versions: versions::versions(file, metadata),
            only_paced: paced::only_paced(file),
            runs: file.runs.max(1),
            keep: metadata.map_or_else(Vec::new, |metadata| metadata.keep.clone()),
            oversubscribed,
            across: Acrosses::of(&bands),
            messages,
            host: HostNoise::of(file, &noise, &bands),
            unkept,
            bands,
        }
    }
}

/// Where the answer stands, as the sweep's control loop (`sweep::choose`) reads it between two
/// passes: what an [`Analysis`] ranks and decides, from the rows measured so far, each computed
/// once, and none of the per-cell figures, designs or versions it adds.
#[derive(Debug, Clone)]
pub struct Standing {
    /// The throughput answer: per group and band of task counts, the rankings with their
    /// verdicts ([`Analysis::bands`]).
    pub bands: Vec<Recommendation>,
    /// The answer for the paced cells ([`Analysis::paced`]); empty without any.
    pub paced: Vec<PacedBand>,
    /// The room the file answers for (`decision::default_room`), with the cells its decisions
    /// rest on in both phases (`decision::contenders`: the pick's, its closest challenger's,
    /// and those passed over with the channels ahead of them, in file order), and whether more
    /// rounds could change a pick (`Decision::contested`); `None` without paced cells.
    pub room: Option<(u64, Vec<CellKey>, bool)>,
    /// The noise `file` measured, which every verdict above was judged in.
    noise: FileNoise,
}

impl Standing {
    /// Where `file`'s answer stands, its room decided on the figures of `weighing`.
    pub fn of(file: &ResultsFile, weighing: &Weighing) -> Standing {
        let (noise, table) = (FileNoise::of(file), Table::of(file));
        let room = decision::default_room(file).map(|room| {
            let (keys, contested) = decision::contenders((file, &table), &noise, room, weighing);
            (room, keys, contested)
        });
        let groups = Groups::of(file, &table);
        let (bands, paced) = (recommend::recommend(&groups.all, &noise), paced::answer(&groups.paced, &noise));
        Standing { bands, paced, room, noise }
    }

    /// What would decide `verdict`, a speed verdict of `band` measured over `rounds` rounds,
    /// with the drift and resolution the run measured in the band's group (`decide::needed`):
    /// more rounds, or none would; `None` when it is decided.
    pub fn needed(&self, band: &Band, verdict: &Verdict, rounds: usize) -> Option<Needed> {
        let group = band.noise_group();
        let drift = self.noise.paired_drift(&group, Metric::Speed);
        decide::needed(verdict, rounds, drift, self.noise.resolution(&group, Metric::Speed))
    }

    /// How many bands of `file` stay open, by what would decide them: more rounds than `left`
    /// would take, and no number of rounds (`decide::open_bands`).
    pub fn still_open(&self, file: &ResultsFile, left: std::time::Duration) -> (usize, usize) {
        let open = decide::open_bands(file, &self.noise, &self.bands);
        let beyond = open.iter().filter(|open| open.needed == Needed::Beyond).count();
        let longer = open.iter().filter(|open| open.needed != Needed::Beyond && open.seconds > left.as_secs_f64());
        (longer.count(), beyond)
    }

    /// The bands of `file` still open that the duels' last `left` would likely not decide: the
    /// rounds their widest open verdict needs take longer, or no number of rounds would
    /// (`decide::open_bands`). Past their budget the duels leave them.
    pub fn out_of_reach(&self, file: &ResultsFile, left: std::time::Duration) -> Vec<Band> {
        let open = decide::open_bands(file, &self.noise, &self.bands).into_iter();
        let beyond = |open: &Open| open.needed == Needed::Beyond || open.seconds > left.as_secs_f64();
        open.filter(beyond).map(|open| open.band.band).collect()
    }

    /// How close a tie of `band` on `metric` must be before more rounds would narrow it by
    /// little (0.05 = within 5%): the run's resolution (`FileNoise::resolution`).
    pub fn resolution(&self, band: &Band, metric: Metric) -> f64 {
        self.noise.resolution(&band.noise_group(), metric)
    }
}

/// The messages per sample of `file`'s flat-out samples at the default setting, each once.
fn messages(file: &ResultsFile) -> Vec<u64> {
    let flat_out = file.order.iter().filter(|key| key.coord.setting.is_default() && key.messages > 0);
    flat_out.map(|key| key.messages).collect::<BTreeSet<u64>>().into_iter().collect()
}

/// Each multi-thread worker count of `file` above its machine's cores (the cell's machine, or
/// `cores` for a file of one machine), with those cores, in order.
fn oversubscribed(file: &ResultsFile, cores: usize) -> Vec<(u64, usize)> {
    let multi = file.order.iter().filter(|key| key.coord.runtime == RuntimeKind::MultiThread);
    let on =
        multi.map(|key| (key.coord.workers, if key.coord.machine.cores > 0 { key.coord.machine.cores } else { cores }));
    let above: BTreeSet<(u64, usize)> = on.filter(|&(workers, cores)| cores > 0 && workers > cores as u64).collect();
    above.into_iter().collect()
}

/// What `file`'s cells did not keep of what was asked (`results::unkept`).
fn unkept(file: &ResultsFile) -> Vec<Unkept> {
    unkept::unkept(file.order.iter().map(|key| Shape {
        mode: key.coord.mode,
        capacity: key.coord.capacity,
        tasks: key.tasks,
        batch: key.coord.setting.batch.unwrap_or(1),
    }))
}
