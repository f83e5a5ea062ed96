import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import r from"node:fs";import o from"node:path";var f=8*1024*1024;function i(e){return e.hookDebug}function a(e,t){if(i(t))try{let n=t.hookDebugFile;r.mkdirSync(o.dirname(n),{recursive:!0}),r.appendFileSync(n,`${JSON.stringify({time:new Date().toISOString(),...e})}
`)}catch{}}export{a};
