// Bull (v3): one queue object both adds and processes jobs.
const Queue = require("bull");

const thumbnails = new Queue("thumbnails", process.env.REDIS_URL);

thumbnails.process(async (job) => job.data.path);

function enqueue(path) {
  return thumbnails.add({ path });
}

module.exports = { enqueue };
