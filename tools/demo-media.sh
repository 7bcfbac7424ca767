#!/bin/sh
# Makes kino's demo media (server/demo/files), which the binary carries and
# serves at /demo/: everything offline, with ffmpeg (flite speaks the talk).
# Run from the repository's root: make demo-media.
set -eu
out=server/demo/files
mkdir -p "$out"
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }
talk="Welcome to kino. This short talk was made on this machine, with no network. Every example renders with it."
# A 6 second talk: a slow gradient behind a title, and the voice.
ff -f lavfi -i "gradients=size=640x360:rate=25:speed=0.02:c0=0x1d3557:c1=0x457b9d:duration=7" \
   -f lavfi -i "flite=text='$talk':voice=slt" \
   -filter_complex "[0:v]drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:text='kino demo talk':fontsize=36:fontcolor=white:x=(w-text_w)/2:y=(h-text_h)/2[v];[1:a]aresample=48000,apad[a]" \
   -map "[v]" -map "[a]" -t 7 -c:v libx264 -preset slow -crf 32 -pix_fmt yuv420p -c:a aac -b:a 48k -ac 1 -movflags +faststart "$out/talk.mp4"
# Two pictures.
ff -f lavfi -i "mandelbrot=size=1280x720:rate=1" -frames:v 1 -q:v 6 "$out/picture1.jpg"
ff -f lavfi -i "gradients=size=1280x720:rate=1:c0=0xe63946:c1=0xf1faee:c2=0xa8dadc:c3=0x1d3557:n=4:seed=7" -frames:v 1 -q:v 6 "$out/picture2.jpg"
# Twelve seconds of music: a chord that swells and fades.
ff -f lavfi -i "aevalsrc=0.2*sin(2*PI*220*t)+0.15*sin(2*PI*277.18*t)+0.12*sin(2*PI*329.63*t):s=48000:d=12" \
   -af "afade=t=in:d=2,afade=t=out:st=9:d=3" -c:a libmp3lame -b:a 64k -ac 1 "$out/music.mp3"
# A logo with a transparent background.
ff -f lavfi -i "color=c=0x00000000:s=160x160,format=rgba" \
   -vf "drawbox=x=10:y=10:w=140:h=140:color=0xff6600@1:t=fill,drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:text='k':fontsize=110:fontcolor=white:x=(w-text_w)/2:y=(h-text_h)/2-8" \
   -frames:v 1 "$out/logo.png"
# A font, and the licence it is shipped under.
cp /usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf "$out/font.ttf"
cp /usr/share/doc/fonts-dejavu-core/copyright "$out/font-LICENSE.txt"
# Two PSD templates for mockup layers: kino's own test templates, written
# offline by ag-psd (make mockup-fixtures): a screen on a desk (smart object
# "Screen", 1280x720) and a shirt (smart object "Front/Design").
cp server/mockup/testdata/screen.psd "$out/screen.psd"
cp server/mockup/testdata/mockup.psd "$out/shirt.psd"
# Captions of the talk.
cat > "$out/captions.srt" <<'SRT'
1
00:00:00,000 --> 00:00:02,000
Welcome to kino.

2
00:00:02,000 --> 00:00:04,400
This short talk was made on this machine, with no network.

3
00:00:04,400 --> 00:00:06,500
Every example renders with it.
SRT
ls -l "$out"
