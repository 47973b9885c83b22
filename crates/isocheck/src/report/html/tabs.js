function showCase(id){var p=document.getElementById(id);if(!p||!p.classList.contains('case'))return;var g=p.closest('.cases');g.querySelectorAll('.case').forEach(function(x){x.hidden=x!==p});g.querySelectorAll('[role=tab]').forEach(function(b){b.setAttribute('aria-selected',String(b.dataset.case===id))})}
function reveal(id){var p=document.getElementById(id);if(!p)return;for(var d=p;d;d=d.parentElement){if(d.tagName==='DETAILS')d.open=true}showCase(id);p.scrollIntoView()}
document.querySelectorAll('.tabs [role=tab]').forEach(function(b){b.addEventListener('click',function(){history.replaceState(null,'','#'+b.dataset.case);showCase(b.dataset.case)})});
window.addEventListener('hashchange',function(){reveal(decodeURIComponent(location.hash.slice(1)))});
if(location.hash)reveal(decodeURIComponent(location.hash.slice(1)));
