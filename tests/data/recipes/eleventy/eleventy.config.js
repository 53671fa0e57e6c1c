const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

module.exports = function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy("assets");
  // In _site/, the gate walks the built pages, not the templates.
  eleventyConfig.addPassthroughCopy("claim-evidence.toml");

  // The bundle file as written. Never `evidence.about | dump` (or `| json`): JSON.stringify writes 12.0 as 12.
  eleventyConfig.addShortcode("claimEvidenceData", (name) => {
    const json = fs.readFileSync(path.join(__dirname, "_data", "evidence", `${name}.json`), "utf8");
    return `<script type="application/json" id="claim-evidence-data">${json}</script>`;
  });

  // Every slot is empty after a build: fill them, then check. --config, not a folder: a run over the
  // config's pages also fails a site whose evidence vanished (SH007) or a required page without it (SH160).
  eleventyConfig.on("eleventy.after", ({ dir }) => {
    const helper = ["--no-cache", "--config", "claim-evidence.toml"];
    spawnSync("static-helper", ["--write", ...helper], { cwd: dir.output, stdio: "ignore" });
    const check = spawnSync("static-helper", helper, { cwd: dir.output, stdio: "inherit" });
    if (check.status !== 0) {
      // The findings are printed: one line more, and a failed build without a stack trace.
      console.error(`static-helper: the evidence check of ${dir.output} failed (${check.error || `exit ${check.status}`})`);
      process.exitCode = 1;
    }
  });
};
