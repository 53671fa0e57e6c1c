# Every slot is empty after a build: fill them in _site, then check. --config, not a folder: a run over the
# config's pages also fails a site whose evidence vanished (SH007) or a required page without it (SH160).
Jekyll::Hooks.register :site, :post_write do |site|
  helper = ["--no-cache", "--config", "claim-evidence.toml"]
  system("static-helper", "--write", *helper, chdir: site.dest, out: File::NULL, err: File::NULL)
  next if system("static-helper", *helper, chdir: site.dest)

  # The findings are printed: one line more, and `jekyll build` exits 1 when it ends. Raising here
  # (or exit, abort_with) would add Jekyll's box and a Ruby backtrace.
  Jekyll.logger.error("static-helper:", "the evidence check of #{site.dest} failed (exit #{$?.exitstatus})")
  at_exit { exit 1 }
end
