"use strict";
var s=Object.defineProperty;var g=Object.getOwnPropertyDescriptor;var h=Object.getOwnPropertyNames;var p=Object.prototype.hasOwnProperty;var f=(e,t)=>{for(var i in t)s(e,i,{get:t[i],enumerable:!0})},u=(e,t,i,a)=>{if(t&&typeof t=="object"||typeof t=="function")for(let r of h(t))!p.call(e,r)&&r!==i&&s(e,r,{get:()=>t[r],enumerable:!(a=g(t,r))||a.enumerable});return e};var d=e=>u(s({},"__esModule",{value:!0}),e);var $={};f($,{a:()=>c});module.exports=d($);var o=require("./chunk-TE2E62KE.js"),m=[".obsidian/",".trash/"],b=1024*1024;function c(e){let t="";try{t=(0,o.x)(e,".gitignore",b).toString("utf8")}catch(n){if(n.code!=="NOT_FOUND")return}let i=new Set(t.split(/\r?\n/).map(n=>n.trim().replace(/^\//,""))),a=m.filter(n=>!i.has(n)&&!i.has(n.slice(0,-1)));if(a.length===0)return;let r=t&&!t.endsWith(`
`)?`${t}
`:t,l=t.includes("# git-kb:")?"":`# git-kb: per-machine folders of an Obsidian vault (settings, workspace, trash)
`;return{path:".gitignore",content:`${r}${l}${a.join(`
`)}
`}}
