(function(){var imgs=document.querySelectorAll('figure.chart img');var n=0;
function done(){n++;if(n===imgs.length){var ok=0;imgs.forEach(function(i){if(i.complete&&i.naturalWidth>0)ok++;});
document.body.setAttribute('data-charts-loaded',String(ok));}}
imgs.forEach(function(i){if(i.complete){done();}else{i.addEventListener('load',done);i.addEventListener('error',done);}});
if(imgs.length===0)document.body.setAttribute('data-charts-loaded','0');})();