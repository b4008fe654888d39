import { mount } from 'svelte';
import App from './App.svelte';
import Display from './Display.svelte';
import './styles.css';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html has no #app element');
// /display: the customer display (a second window or a tablet facing the customer), same build and origin.
mount(location.pathname.replace(/\/+$/, '') === '/display' ? Display : App, { target });
