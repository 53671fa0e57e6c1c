# Every slot is empty after a build: fill them in _site, then check; a finding fails the build.
Jekyll::Hooks.register :site, :post_write do |site|
  system("static-helper", "--write", "--no-cache", ".", chdir: site.dest, out: File::NULL)
  next if system("static-helper", "--no-cache", ".", chdir: site.dest)

  raise Jekyll::Errors::FatalException, "static-helper: the evidence check of #{site.dest} failed (exit #{$?.exitstatus})"
end
