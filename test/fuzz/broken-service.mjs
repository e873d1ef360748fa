// A deliberately broken service for the watch's own tests (plain node, its own process so that its RSS is its own):
// GET /v1/orders answers only after 3 s; GET /v1/portfolio keeps 256 MiB for good and answers; POST
// /v1/goals/feasibility grows by 16 MiB every 20 ms without answering, as the request issue 20 measured did (up to
// 1 GiB, so that a watch that fails to stop it cannot take the machine); anything else answers at once. Buffers are
// filled so that their pages are resident, not only reserved.
import http from 'node:http';

const MiB = 2 ** 20;
const kept = [];
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/v1/orders')) {
    setTimeout(() => res.end('late'), 3_000);
  } else if (req.url.startsWith('/v1/portfolio')) {
    kept.push(Buffer.alloc(256 * MiB, 1));
    res.end('kept');
  } else if (req.url.startsWith('/v1/goals/feasibility')) {
    const grow = setInterval(() => (kept.length < 64 ? kept.push(Buffer.alloc(16 * MiB, 1)) : clearInterval(grow)), 20);
  } else {
    res.end('ok');
  }
});
server.listen(0, '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
