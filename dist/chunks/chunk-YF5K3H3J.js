import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import s from"node:fs";import a from"node:path";var c=[".obsidian/"];function f(r){let n="";try{n=s.readFileSync(a.join(r,".gitignore"),"utf8")}catch{}let o=new Set(n.split(/\r?\n/).map(t=>t.trim().replace(/^\//,"").replace(/\/$/,""))),e=c.filter(t=>!o.has(t.replace(/\/$/,"")));if(e.length===0)return;let i=n&&!n.endsWith(`
`)?`${n}
`:n;return{path:".gitignore",content:`${i}${i?`
`:""}# Obsidian's settings of this machine (written by git-kb)
${e.join(`
`)}
`}}export{f as a};
