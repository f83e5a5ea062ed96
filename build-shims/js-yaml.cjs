// gray-matter requires js-yaml for its default YAML engine; git-kb always passes its own engine (the `yaml`
// package), so the bundle gets this stand-in instead of js-yaml and the esprima parser it drags in.
function refuse() {
  throw new Error('js-yaml is not bundled: git-kb parses front matter with the yaml package');
}
module.exports = { safeLoad: refuse, safeDump: refuse, load: refuse, dump: refuse };
