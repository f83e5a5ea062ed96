import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import a from"node:fs";import c from"node:path";var g=[".obsidian/",".trash/"];function d(r){let t="";try{t=a.readFileSync(c.join(r,".gitignore"),"utf8")}catch{}let e=new Set(t.split(/\r?\n/).map(n=>n.trim().replace(/^\//,""))),i=g.filter(n=>!e.has(n)&&!e.has(n.slice(0,-1)));if(i.length===0)return;let o=t&&!t.endsWith(`
`)?`${t}
`:t,s=t.includes("# git-kb:")?"":`# git-kb: per-machine folders of an Obsidian vault (settings, workspace, trash)
`;return{path:".gitignore",content:`${o}${s}${i.join(`
`)}
`}}export{d as a};
