const { execFileSync, spawnSync } = require("node:child_process");
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

  // Every slot is empty after a build: fill them, then check; a finding fails the build.
  eleventyConfig.on("eleventy.after", ({ dir }) => {
    const helper = ["--no-cache", "."];
    spawnSync("static-helper", ["--write", ...helper], { cwd: dir.output, stdio: ["ignore", "ignore", "inherit"] });
    execFileSync("static-helper", helper, { cwd: dir.output, stdio: "inherit" });
  });
};
