// performance.now() must run in real time: measure.sh reads this page's
// console output, it never gives Chromium a virtual time budget.
// Times the game's verification of one sale (signatures, Merkle proof of a
// 400,000-ticket block, rules, stake) in the browser. Run by measure.sh.
import init, { BenchCase, BenchRecord } from "./pkg/eldorado_web.js";

const out = document.getElementById("out");
try {
  await init();
  const c = new BenchCase();
  if (!c.verify_once()) throw new Error("the fixture does not verify");
  for (let i = 0; i < 200; i++) c.verify_once(); // warm-up (JIT tiers)
  const runs = [];
  const n = 500;
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) c.verify_once();
    runs.push((performance.now() - t0) / n);
  }
  runs.sort((a, b) => a - b);
  // The public record's checks of the same sale: checkpoint, consistency, inclusion.
  const r = new BenchRecord();
  if (!r.verify_once()) throw new Error("the record fixture does not verify");
  for (let i = 0; i < 200; i++) r.verify_once();
  const recordRuns = [];
  for (let k = 0; k < 7; k++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) r.verify_once();
    recordRuns.push((performance.now() - t0) / n);
  }
  recordRuns.sort((a, b) => a - b);
  if (!r.proofs_once()) throw new Error("the record's proofs do not verify");
  const proofRuns = [];
  for (let k = 0; k < 7; k++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) r.proofs_once();
    proofRuns.push((performance.now() - t0) / n);
  }
  proofRuns.sort((a, b) => a - b);
  out.textContent = `RESULT verify_ms_median=${runs[3].toFixed(4)} min=${runs[0].toFixed(4)} max=${runs[6].toFixed(4)} proof_len=${c.proof_len()} iterations=${n}x7 record_ms_median=${recordRuns[3].toFixed(4)} record_min=${recordRuns[0].toFixed(4)} record_max=${recordRuns[6].toFixed(4)} record_proof_len=${r.proof_len()} proofs_ms_median=${proofRuns[3].toFixed(4)}`;
  console.log(out.textContent);
} catch (e) {
  out.textContent = `ERROR ${e}`;
  console.log(out.textContent);
}
