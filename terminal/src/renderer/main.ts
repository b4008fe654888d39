import { mount } from 'svelte';
import App from './App.svelte';
import Display from './Display.svelte';
import './styles.css';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html has no #app element');
// /display: the customer display in a second window of the till's machine; /tablet: the same on a
// paired tablet of the shop's network (the host's event stream). Same build.
const path = location.pathname.replace(/\/+$/, '');
if (path === '/display' || path === '/tablet') mount(Display, { target, props: { tablet: path === '/tablet' } });
else mount(App, { target });
