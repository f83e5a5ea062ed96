import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import r from"node:fs";import i from"node:os";import o from"node:path";var l=8*1024*1024;function s(e=process.env){return/^(1|true|yes|on)$/i.test(e.KB_HOOK_DEBUG??"")}function u(e=process.env){return e.KB_HOOK_DEBUG_FILE||o.join(i.tmpdir(),"git-kb-hooks","debug.jsonl")}function m(e,n=process.env){if(s(n))try{let t=u(n);r.mkdirSync(o.dirname(t),{recursive:!0}),r.appendFileSync(t,`${JSON.stringify({time:new Date().toISOString(),...e})}
`)}catch{}}export{s as a,m as b};
