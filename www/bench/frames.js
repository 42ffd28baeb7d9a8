// Times the reveal animation frame by frame (requestAnimationFrame
// intervals while columns turn), on a canvas sized like the game's board.
// Run by www/bench/frames.py, which throttles the CPU through CDP first.
import init, { BenchBoard } from "./pkg/eldorado_web.js";

const out = document.getElementById("out");
const REVEALS = 6;
try {
  await init();
  const canvas = document.getElementById("board");
  const box = canvas.getBoundingClientRect();
  const board = new BenchBoard(canvas, box.width, box.height, devicePixelRatio);
  const intervals = [];
  const work = [];
  let done = 0;
  let last = null;
  await new Promise((resolve, reject) => {
    board.start();
    const tick = (now) => {
      try {
        if (last !== null) intervals.push(now - last);
        last = now;
        const t0 = performance.now();
        const ended = board.frame(now);
        work.push(performance.now() - t0);
        if (ended) {
          done += 1;
          last = null;
          if (done === REVEALS) return resolve();
          board.start();
        }
        requestAnimationFrame(tick);
      } catch (e) {
        reject(e);
      }
    };
    requestAnimationFrame(tick);
  });
  const pct = (xs, p) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  };
  out.textContent = `RESULT frame_ms_p95=${pct(intervals, 95).toFixed(2)} frame_ms_median=${pct(intervals, 50).toFixed(2)} ` +
    `draw_ms_p95=${pct(work, 95).toFixed(2)} frames=${intervals.length} backing=${canvas.width}x${canvas.height} dpr=${devicePixelRatio}`;
} catch (e) {
  out.textContent = `ERROR ${e}`;
}
console.log(out.textContent);
