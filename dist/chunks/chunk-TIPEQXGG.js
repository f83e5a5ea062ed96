import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
var b=/\x1b\[[0-?]{0,64}[ -/]{0,16}[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)|\x1b[P^_X][^\x1b]{0,4096}\x1b\\|\x1b[@-Z\\-_]|\x9b[0-?]{0,64}[ -/]{0,16}[@-~]/g,e=/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;function n(x){return x.replace(b,"").replace(/\r\n/g,`
`).replace(e,"?")}export{n as a};
