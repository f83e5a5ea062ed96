"use strict";
var n=Object.defineProperty;var i=Object.getOwnPropertyDescriptor;var l=Object.getOwnPropertyNames;var o=Object.prototype.hasOwnProperty;var p=(r,e)=>{for(var c in e)n(r,c,{get:e[c],enumerable:!0})},s=(r,e,c,t)=>{if(e&&typeof e=="object"||typeof e=="function")for(let a of l(e))!o.call(r,a)&&a!==c&&n(r,a,{get:()=>e[a],enumerable:!(t=i(e,a))||t.enumerable});return r};var d=r=>s(n({},"__esModule",{value:!0}),r);var f={};p(f,{a:()=>u});module.exports=d(f);function u(r){return r.includes("\r")?r.replace(/\r\n?/g,`
`):r}
