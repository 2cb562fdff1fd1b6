// Mail jobs on Redis: BullMQ producer and worker, and a worker_threads
// Worker that is no job queue.
const { Queue, Worker } = require("bullmq");
const { Worker: Thread } = require("worker_threads");

const connection = { host: process.env.REDIS_HOST || "redis", port: 6379 };
const MAIL_QUEUE = "outgoing-mail";

const mail = new Queue(MAIL_QUEUE, { connection });

async function sendWelcome(user) {
  await mail.add("welcome", { to: user.email });
}

const worker = new Worker(
  process.env.DIGEST_QUEUE || "digests",
  async (job) => job.data,
  { connection },
);

const thread = new Thread("./resize.js");

module.exports = { sendWelcome, worker, thread };
