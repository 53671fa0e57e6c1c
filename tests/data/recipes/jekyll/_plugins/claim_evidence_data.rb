# {% claim_evidence_data about %}: the bundle script with _data/evidence/about.json as written.
# Not site.data + jsonify: that re-serializes the bundle (and does not escape "<").
class ClaimEvidenceData < Liquid::Tag
  def initialize(tag_name, name, tokens)
    super
    @name = name.strip
  end

  def render(context)
    site = context.registers[:site]
    json = File.read(File.join(site.source, "_data", "evidence", "#{@name}.json"), encoding: "utf-8")
    %(<script type="application/json" id="claim-evidence-data">#{json}</script>)
  end
end

Liquid::Template.register_tag("claim_evidence_data", ClaimEvidenceData)
