"use strict";
var f=Object.create;var o=Object.defineProperty;var d=Object.getOwnPropertyDescriptor;var m=Object.getOwnPropertyNames;var u=Object.getPrototypeOf,b=Object.prototype.hasOwnProperty;var $=(e,t)=>{for(var i in t)o(e,i,{get:t[i],enumerable:!0})},s=(e,t,i,n)=>{if(t&&typeof t=="object"||typeof t=="function")for(let r of m(t))!b.call(e,r)&&r!==i&&o(e,r,{get:()=>t[r],enumerable:!(n=d(t,r))||n.enumerable});return e};var l=(e,t,i)=>(i=e!=null?f(u(e)):{},s(t||!e||!e.__esModule?o(i,"default",{value:e,enumerable:!0}):i,e)),k=e=>s(o({},"__esModule",{value:!0}),e);var v={};$(v,{a:()=>h});module.exports=k(v);var c=l(require("node:fs")),g=l(require("node:path")),j=[".obsidian/",".trash/"];function h(e){let t="";try{t=c.default.readFileSync(g.default.join(e,".gitignore"),"utf8")}catch{}let i=new Set(t.split(/\r?\n/).map(a=>a.trim().replace(/^\//,""))),n=j.filter(a=>!i.has(a)&&!i.has(a.slice(0,-1)));if(n.length===0)return;let r=t&&!t.endsWith(`
`)?`${t}
`:t,p=t.includes("# git-kb:")?"":`# git-kb: per-machine folders of an Obsidian vault (settings, workspace, trash)
`;return{path:".gitignore",content:`${r}${p}${n.join(`
`)}
`}}
